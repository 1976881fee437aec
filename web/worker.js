// The probe in WebAssembly, in a worker: synchronous range requests are
// allowed here, so the module reads the tables with a plain function call.
// Messages in: {id, op: "open" | "probe" | "moves" | "info" | "stats", arg}
// (for "probe", arg is a position, or {position, counter} under the
// tables' no-capture rule);
// out: {id, result, ms} where result is the module's JSON answer, parsed.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let wasm = null;
let opened = null;
const fetched = { bytes: 0, requests: 0 };

/** Reads up to `len` bytes of `url` from `offset` into the module's memory. */
function readRange(urlPtr, urlLen, offset, outPtr, len, copiedPtr) {
  const url = decoder.decode(new Uint8Array(wasm.memory.buffer, urlPtr, urlLen));
  const xhr = new XMLHttpRequest();
  try {
    xhr.open("GET", url, false);
    xhr.responseType = "arraybuffer";
    xhr.setRequestHeader("Range", `bytes=${offset}-${offset + len - 1}`);
    xhr.send();
  } catch (e) {
    console.error(`GET ${url}: ${e}`);
    return -1;
  }
  if (xhr.status === 404) return -404;
  if (xhr.status !== 200 && xhr.status !== 206) return -(xhr.status || 1);
  const body = new Uint8Array(xhr.response);
  fetched.bytes += body.length;
  fetched.requests += 1;
  let data = body;
  let total = body.length;
  if (xhr.status === 206) {
    const span = /\/(\d+)\s*$/.exec(xhr.getResponseHeader("Content-Range") || "");
    if (!span) return -1;
    total = Number(span[1]);
  } else {
    // A host that ignores Range sends the whole file.
    data = body.subarray(offset, offset + len);
  }
  const n = Math.min(data.length, len);
  new Uint8Array(wasm.memory.buffer, outPtr, n).set(data.subarray(0, n));
  new DataView(wasm.memory.buffer).setUint32(copiedPtr, n, true);
  return total;
}

async function load() {
  const imports = { moulin: { read_range: readRange } };
  const response = await fetch(new URL("moulin_wasm.wasm", import.meta.url));
  if (!response.ok) {
    throw new Error(`moulin_wasm.wasm: HTTP ${response.status} (build it with scripts/build-web.sh)`);
  }
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
  wasm = instance.exports;
}

/** Calls an export with a string argument (and a number after it, if
 * given) and parses its JSON answer. */
function call(name, text, number) {
  let n;
  if (text === undefined) {
    n = wasm[name]();
  } else {
    const bytes = encoder.encode(text);
    const ptr = wasm.moulin_alloc(bytes.length);
    new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
    try {
      if (name === "moulin_open") n = wasm.moulin_open(ptr, bytes.length, 32 << 20);
      else if (number !== undefined) n = wasm[name](ptr, bytes.length, number);
      else n = wasm[name](ptr, bytes.length);
    } finally {
      wasm.moulin_free(ptr, bytes.length);
    }
  }
  const out = new Uint8Array(wasm.memory.buffer, wasm.moulin_output(), n);
  return JSON.parse(decoder.decode(out));
}

const OPS = {
  open: (base) => {
    opened = base;
    return call("moulin_open", base);
  },
  probe: (arg) =>
    typeof arg === "object" && arg !== null
      ? call("moulin_probe_counter", arg.position, arg.counter)
      : call("moulin_probe", arg),
  moves: (position) => call("moulin_moves", position),
  info: () => call("moulin_info"),
  stats: () => ({ ...fetched }),
};

const ready = load();

self.onmessage = async ({ data: { id, op, arg } }) => {
  const start = performance.now();
  let result;
  try {
    await ready;
    result = OPS[op](arg);
  } catch (e) {
    result = { error: String(e.message || e) };
    // A trap leaves the module unusable: start a fresh one.
    if (e instanceof WebAssembly.RuntimeError) {
      await load().then(() => opened && call("moulin_open", opened)).catch(() => {});
    }
  }
  self.postMessage({ id, result, ms: performance.now() - start });
};
