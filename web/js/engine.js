// Where answers come from: the WebAssembly probe in a worker (always used
// for the rules, and for probes on a static host), or `moulin serve`'s
// /api/probe when the page is served by it.

export class Engine {
  /**
   * `tables`: base URL of the tables; `probe`: "auto" (the server's API if
   * there is one), "wasm" or "api".
   */
  constructor({ tables, probe }) {
    this.tablesUrl = new URL(tables, location.href).href;
    this.wanted = probe;
    this.api = null;
    this.worker = new Worker(new URL("../worker.js", import.meta.url), { type: "module" });
    this.pending = new Map();
    this.next = 0;
    /** Milliseconds of the last probe: seen from the page, and inside the worker. */
    this.lastMs = 0;
    this.lastWorkerMs = null;
    this.worker.onmessage = ({ data }) => {
      const resolve = this.pending.get(data.id);
      this.pending.delete(data.id);
      resolve(data);
    };
  }

  request(op, arg) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, op, arg });
    });
  }

  /** Opens the tables; an error (e.g. no WebAssembly) is thrown. */
  async start() {
    if (this.wanted !== "wasm") {
      try {
        const reply = await fetch(new URL("api/info", location.href), { cache: "no-store" });
        if (reply.ok) this.api = await reply.json();
      } catch {
        this.api = null;
      }
      if (this.wanted === "api" && !this.api) throw new Error("no /api/ here: is the page served by `moulin serve` (without --static-only)?");
    }
    const { result, ms } = await this.request("open", this.tablesUrl);
    this.openMs = ms;
    if (result.error) throw new Error(result.error);
  }

  /** Whether probes go to the server. */
  get remote() {
    return this.api !== null;
  }

  /** The legal moves of a position and the positions they lead to. */
  async moves(position) {
    return (await this.request("moves", position)).result;
  }

  /**
   * What `moulin probe --json` prints for a position, as an object; with a
   * counter (tables of the no-capture rule), `moulin probe --json --counter`.
   */
  async probe(position, counter = null) {
    const start = performance.now();
    let result;
    if (this.api) {
      const url = new URL("api/probe", location.href);
      url.searchParams.set("position", position);
      if (counter !== null) url.searchParams.set("counter", String(counter));
      const reply = await fetch(url, { cache: "no-store" });
      result = await reply.json();
      this.lastWorkerMs = null;
    } else {
      const reply = await this.request("probe", counter === null ? position : { position, counter });
      result = reply.result;
      this.lastWorkerMs = reply.ms;
    }
    this.lastMs = performance.now() - start;
    return result;
  }

  /** The rules of the tables: {flying, no_capture_limit}. */
  async rules() {
    if (this.api) return this.api.rules;
    return (await this.request("info")).result.rules;
  }

  /** Bytes and requests the worker fetched so far. */
  async fetched() {
    return (await this.request("stats")).result;
  }
}
