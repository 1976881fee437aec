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

/** The last range request's XMLHttpRequest, read by replyHeader and replyBody. */
let reply = null;

/** GETs `url` with `Range: bytes=first-last` and keeps the reply; returns
 * its status, or -1 if there is none. The module checks the reply. */
function rangeGet(urlPtr, urlLen, first, last) {
  const url = decoder.decode(new Uint8Array(wasm.memory.buffer, urlPtr, urlLen));
  const xhr = new XMLHttpRequest();
  reply = null;
  try {
    xhr.open("GET", url, false);
    xhr.responseType = "arraybuffer";
    xhr.setRequestHeader("Range", `bytes=${first}-${last}`);
    xhr.send();
  } catch (e) {
    console.error(`GET ${url}: ${e}`);
    return -1;
  }
  if (!xhr.status) return -1;
  reply = xhr;
  if (xhr.status === 200 || xhr.status === 206) {
    fetched.bytes += xhr.response ? xhr.response.byteLength : 0;
    fetched.requests += 1;
  }
  return xhr.status;
}

/** Writes up to `cap` bytes at `outPtr`; returns the length of `bytes`. */
function copyOut(bytes, outPtr, cap) {
  const n = Math.min(bytes.length, cap);
  new Uint8Array(wasm.memory.buffer, outPtr, n).set(bytes.subarray(0, n));
  return bytes.length;
}

/** A header of the last reply into the module's memory: its length, -1 if absent. */
function replyHeader(namePtr, nameLen, outPtr, cap) {
  const name = decoder.decode(new Uint8Array(wasm.memory.buffer, namePtr, nameLen));
  const value = reply && reply.getResponseHeader(name);
  return value === null ? -1 : copyOut(encoder.encode(value), outPtr, cap);
}

/** The body of the last reply into the module's memory: its length. */
function replyBody(outPtr, cap) {
  return copyOut(new Uint8Array((reply && reply.response) || 0), outPtr, cap);
}

async function load() {
  const imports = { moulin: { range_get: rangeGet, reply_header: replyHeader, reply_body: replyBody } };
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
