// infergap's ONNX Runtime runner: the ort backend (in an infergap-worker) starts this with
// `node runner.js MODULES_DIR` and talks to it over fd 3 (stdout is left to libraries).
// Frame, both ways: u32 LE header length, JSON header, u64 LE body length, body bytes. Tensors
// travel as raw little-endian bytes in the body; the header lists {name, dtype, dims, offset,
// length} (strings travel in the header). A hello naming a "bulk_fd" (a memory file the worker
// shares) sends each later reply's body there instead, at the request's "bulk_at": the header says
// {bulk: N}, the socket's body is empty (runner_process.h says why).
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');

let ort;
try {
  ort = require(path.join(process.argv[2], 'onnxruntime-node'));
} catch (e) {
  ort = null;
  process.stderr.write(`ort runner: cannot load onnxruntime-node: ${e.message}\n`);
}

const sessions = new Map();
let bulkFd = null;
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array,
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array,
  uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, bool: Uint8Array,
};

// ORT reads an input where it lies, and some of its kernels give other bits for another address
// alignment (measured: ReduceMean over 64 floats changes with the address modulo 16). A copy from
// Node's Buffer pool lies wherever earlier allocations left the pool, so one input gave different
// outputs from run to run. WebAssembly memory starts on a page boundary: every input is handed
// to ORT 64-byte aligned, as ORT's own allocator aligns the tensors it makes.
const WASM_PAGE = 65536;
const WASM_MAX_PAGES = 65536;  // 4 GiB, the most a WebAssembly memory holds

function alignedCopy(bytes) {
  const pages = Math.max(1, Math.ceil(bytes.length / WASM_PAGE));
  if (pages > WASM_MAX_PAGES) throw new Error(`input of ${bytes.length} bytes: over 4 GiB`);
  const copy = new Uint8Array(new WebAssembly.Memory({ initial: pages }).buffer, 0, bytes.length);
  copy.set(bytes);
  return copy;
}

function toTensor(spec, body) {
  if (spec.dtype === 'string') return new ort.Tensor('string', spec.strings, spec.dims);
  const Ctor = ARRAYS[spec.dtype];
  if (!Ctor) throw new Error(`input '${spec.name}': dtype ${spec.dtype} is not supported by onnxruntime-node`);
  const bytes = alignedCopy(body.subarray(spec.offset, spec.offset + spec.length));
  const data = new Ctor(bytes.buffer, bytes.byteOffset, spec.length / Ctor.BYTES_PER_ELEMENT);
  return new ort.Tensor(spec.dtype, data, spec.dims);
}

async function handle(req, body) {
  if (req.op === 'hello') {
    if (!ort) throw new Error('onnxruntime-node could not be loaded (see stderr)');
    if (Number.isInteger(req.bulk_fd)) bulkFd = req.bulk_fd;
    return [{ version: ort.env.versions ? ort.env.versions.common : '', node: process.version }, []];
  }
  if (req.op === 'load') {
    const options = {
      graphOptimizationLevel: req.opt, intraOpNumThreads: req.threads, interOpNumThreads: 1,
      executionMode: 'sequential', executionProviders: ['cpu'],
    };
    // The graph ORT runs, after its optimizations, saved for the executed-graph capture. ORT warns
    // that an NCHWc graph only runs on this CPU: it is read back here, on this CPU.
    if (req.optimized) {
      options.optimizedModelFilePath = req.optimized;
      options.logSeverityLevel = 3;
    }
    if (req.arena === false) options.enableCpuMemArena = false;
    // Session config entries ({session: {disable_prepacking: "1"}} sets session.disable_prepacking).
    if (req.config) options.extra = req.config;
    const session = await ort.InferenceSession.create(req.model, options);
    sessions.set(req.key, session);
    return [{ inputs: session.inputNames, outputs: session.outputNames }, []];
  }
  if (req.op === 'drop') {
    const s = sessions.get(req.key);
    if (s) await s.release();
    sessions.delete(req.key);
    return [{}, []];
  }
  if (req.op === 'run') {
    const session = sessions.get(req.key);
    if (!session) throw new Error(`no session '${req.key}'`);
    const feeds = {};
    for (const spec of req.feeds) feeds[spec.name] = toTensor(spec, body);
    const results = await session.run(feeds, req.fetch);
    const outputs = [];
    const chunks = [];
    let offset = 0;
    for (const name of req.fetch) {
      const t = results[name];
      const entry = { name, dtype: t.type, dims: t.dims };
      if (t.type === 'string') {
        entry.strings = t.data;
      } else {
        const d = t.data;
        const buf = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
        entry.offset = offset;
        entry.length = buf.length;
        offset += buf.length;
        chunks.push(buf);
      }
      outputs.push(entry);
    }
    return [{ outputs }, chunks];
  }
  throw new Error(`unknown op '${req.op}'`);
}

const sock = new net.Socket({ fd: 3, readable: true, writable: true });
let pending = Buffer.alloc(0);
let queue = Promise.resolve();

// Writes the chunks to the bulk file at `at`, true when all went there.
function writeBulk(chunks, at) {
  try {
    for (const c of chunks) {
      for (let done = 0; done < c.length;) done += fs.writeSync(bulkFd, c, done, c.length - done, at + done);
      at += c.length;
    }
    return true;
  } catch (e) {
    return false;  // the socket carries it
  }
}

function send(header, chunks, bulkAt) {
  let total = chunks.reduce((n, c) => n + c.length, 0);
  if (bulkFd !== null && total > 0 && writeBulk(chunks, bulkAt)) {
    header = { ...header, bulk: total };
    chunks = [];
    total = 0;
  }
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(json.length);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(total));
  // Tensors are written where ORT left them, not copied into one frame first: a traced run
  // sends every layer, and each copy of those bytes showed in its time.
  sock.cork();
  sock.write(Buffer.concat([head, json, len]));
  for (const c of chunks) sock.write(c);
  sock.uncork();
}

sock.on('data', (data) => {
  pending = Buffer.concat([pending, data]);
  for (;;) {
    if (pending.length < 4) return;
    const hlen = pending.readUInt32LE(0);
    if (pending.length < 4 + hlen + 8) return;
    const blen = Number(pending.readBigUInt64LE(4 + hlen));
    const end = 4 + hlen + 8 + blen;
    if (pending.length < end) return;
    const req = JSON.parse(pending.subarray(4, 4 + hlen).toString());
    const body = pending.subarray(4 + hlen + 8, end);
    pending = pending.subarray(end);
    // One request at a time, answered in order.
    const bulkAt = Number.isInteger(req.bulk_at) ? req.bulk_at : 0;
    queue = queue.then(() => handle(req, body))
      .then(([header, chunks]) => send({ ok: true, ...header }, chunks, bulkAt),
            (e) => send({ ok: false, error: String(e && e.message ? e.message : e) }, [], bulkAt));
  }
});
sock.on('end', () => process.exit(0));
sock.on('error', () => process.exit(1));
