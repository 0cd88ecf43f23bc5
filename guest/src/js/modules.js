// `require` and the node: modules a script reaches for (path, fs,
// fs/promises, util, events, buffer, crypto, url, process), `Buffer`, and
// `crypto.subtle`'s digest and HMAC. Evaluated once per instance after the
// prelude, whose globals (`fs`, `process`, `crypto`) it builds on.
// `utf8Encode(string)` and `utf8Decode(bytes)` convert natively;
// `digest(algorithm, bytes, key?)` hashes with the RustCrypto crates (sha1,
// sha256, sha384, sha512; an HMAC when `key` is given); `takeStdin()` takes
// what is left of the run's standard input, as a Uint8Array; `inspect` and
// `inspectAs(prototype, show)` are the prelude's util.inspect and its hook
// for a prototype's instances; `onRun(fn)` calls `fn` before each run;
// `formatArgs(list)` is the console's formatting, for util.format.
// Built-ins are captured before any script
// runs, as in the prelude.
(function install(utf8Encode, utf8Decode, digest, takeStdin, inspectValue, inspectAs, onRun, formatArgs, processEvents) {
  "use strict";

  const global = globalThis;
  const { ArrayBuffer, Error, Object, Promise, RangeError, String, TypeError, Uint8Array } = global;
  const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectKeys = Object.keys;
  const ArrayIsArray = Array.isArray;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ArrayPrototypeJoin = uncurryThis(Array.prototype.join);
  const ArrayPrototypePush = uncurryThis(Array.prototype.push);
  const ArrayPrototypeSlice = uncurryThis(Array.prototype.slice);
  const StringFromCharCode = String.fromCharCode;
  const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
  const StringPrototypeLastIndexOf = uncurryThis(String.prototype.lastIndexOf);
  const StringPrototypeSlice = uncurryThis(String.prototype.slice);
  const StringPrototypeEndsWith = uncurryThis(String.prototype.endsWith);
  const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
  const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
  const ObjectPrototypeIsPrototypeOf = uncurryThis(Object.prototype.isPrototypeOf);
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const getter = (proto, name) => uncurryThis(Object.getOwnPropertyDescriptor(proto, name).get);
  const viewBuffer = getter(TypedArrayPrototype, "buffer");
  const viewOffset = getter(TypedArrayPrototype, "byteOffset");
  const viewLength = getter(TypedArrayPrototype, "byteLength");
  const viewTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const TypedArraySet = uncurryThis(TypedArrayPrototype.set);
  const TypedArraySubarray = uncurryThis(TypedArrayPrototype.subarray);
  const TypedArrayFill = uncurryThis(TypedArrayPrototype.fill);
  const hidden = (target, name, value) =>
    ObjectDefineProperty(target, name, { __proto__: null, value, writable: true, configurable: true, enumerable: false });
  const lazy = (target, name, make) => {
    let made;
    ObjectDefineProperty(target, name, { __proto__: null, enumerable: true, configurable: true, get: () => (made ??= make()) });
  };
  const nodeError = (Kind, code, message) => {
    const e = new Kind(message);
    hidden(e, "code", code);
    return e;
  };
  const invalidArg = (name, expected, value) =>
    nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "' + name + '" argument must be ' + expected + ". Received " + kindOf(value));
  const kindOf = (v) => (v === null ? "null" : typeof v === "object" || typeof v === "function" ? "an instance of " + ((v.constructor && v.constructor.name) || "Object") : "type " + typeof v + " (" + String(v) + ")");

  // ---- Buffer ------------------------------------------------------------

  const ENCODINGS = ["utf8", "utf-8", "hex", "base64", "base64url", "latin1", "binary", "ascii", "ucs2", "ucs-2", "utf16le", "utf-16le"];
  const normal = (enc) => {
    if (enc === undefined || enc === null) return "utf8";
    const e = StringPrototypeToLowerCase(String(enc));
    switch (e) {
      case "utf8": case "utf-8": return "utf8";
      case "hex": case "base64": case "base64url": case "latin1": case "ascii": return e;
      case "binary": return "latin1";
      case "ucs2": case "ucs-2": case "utf16le": case "utf-16le": return "utf16le";
    }
    throw nodeError(TypeError, "ERR_UNKNOWN_ENCODING", "Unknown encoding: " + String(enc));
  };
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const B64_VALUE = new Uint8Array(128).fill(255);
  for (let i = 0; i < 64; i++) B64_VALUE[StringPrototypeCharCodeAt(B64, i)] = i;
  B64_VALUE[45] = 62; // -
  B64_VALUE[95] = 63; // _
  const HEX = "0123456789abcdef";

  function bytesOf(string, enc) {
    switch (enc) {
      case "utf8": return utf8Encode(string);
      case "hex": {
        const n = string.length >>> 1;
        const out = new Uint8Array(n);
        let i = 0;
        for (; i < n; i++) {
          const hi = hexValue(StringPrototypeCharCodeAt(string, 2 * i));
          const lo = hexValue(StringPrototypeCharCodeAt(string, 2 * i + 1));
          if (hi < 0 || lo < 0) break;
          out[i] = (hi << 4) | lo;
        }
        return i === n ? out : TypedArraySubarray(out, 0, i);
      }
      case "base64": case "base64url": {
        // Node skips what is not base64 (white space, padding) in either alphabet.
        const out = new Uint8Array((string.length * 3) >>> 2);
        let bits = 0, count = 0, n = 0;
        for (let i = 0; i < string.length; i++) {
          const c = StringPrototypeCharCodeAt(string, i);
          if (c === 61) break;
          const v = c < 128 ? B64_VALUE[c] : 255;
          if (v === 255) continue;
          bits = (bits << 6) | v;
          count += 6;
          if (count >= 8) {
            count -= 8;
            out[n++] = (bits >>> count) & 0xff;
          }
        }
        return TypedArraySubarray(out, 0, n);
      }
      case "latin1": case "ascii": {
        const out = new Uint8Array(string.length);
        for (let i = 0; i < string.length; i++) out[i] = StringPrototypeCharCodeAt(string, i) & 0xff;
        return out;
      }
      case "utf16le": {
        const out = new Uint8Array(string.length * 2);
        for (let i = 0; i < string.length; i++) {
          const c = StringPrototypeCharCodeAt(string, i);
          out[2 * i] = c & 0xff;
          out[2 * i + 1] = c >>> 8;
        }
        return out;
      }
    }
  }
  const hexValue = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

  function textOf(bytes, enc) {
    const n = bytes.length;
    const parts = [];
    // Strings are built a chunk at a time: one char code call per chunk.
    const chunked = (map) => {
      for (let from = 0; from < n; from += 8192) {
        const codes = [];
        const to = from + 8192 < n ? from + 8192 : n;
        for (let i = from; i < to; i++) ArrayPrototypePush(codes, map(bytes[i]));
        ArrayPrototypePush(parts, StringFromCharCode(...codes));
      }
      return ArrayPrototypeJoin(parts, "");
    };
    switch (enc) {
      case "utf8": return utf8Decode(bytes);
      case "latin1": return chunked((b) => b);
      case "ascii": return chunked((b) => b & 0x7f);
      case "hex": {
        for (let i = 0; i < n; i++) ArrayPrototypePush(parts, HEX[bytes[i] >>> 4] + HEX[bytes[i] & 15]);
        return ArrayPrototypeJoin(parts, "");
      }
      case "base64": case "base64url": {
        const alphabet = enc === "base64" ? B64 : B64URL;
        let i = 0;
        for (; i + 2 < n; i += 3) {
          const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
          ArrayPrototypePush(parts, alphabet[v >>> 18] + alphabet[(v >>> 12) & 63] + alphabet[(v >>> 6) & 63] + alphabet[v & 63]);
        }
        const pad = enc === "base64" ? "=" : "";
        if (n - i === 1) {
          const v = bytes[i] << 16;
          ArrayPrototypePush(parts, alphabet[v >>> 18] + alphabet[(v >>> 12) & 63] + pad + pad);
        } else if (n - i === 2) {
          const v = (bytes[i] << 16) | (bytes[i + 1] << 8);
          ArrayPrototypePush(parts, alphabet[v >>> 18] + alphabet[(v >>> 12) & 63] + alphabet[(v >>> 6) & 63] + pad);
        }
        return ArrayPrototypeJoin(parts, "");
      }
      case "utf16le": {
        const codes = [];
        for (let i = 0; i + 1 < n; i += 2) ArrayPrototypePush(codes, bytes[i] | (bytes[i + 1] << 8));
        for (let from = 0; from < codes.length; from += 8192) ArrayPrototypePush(parts, StringFromCharCode(...ArrayPrototypeSlice(codes, from, from + 8192)));
        return ArrayPrototypeJoin(parts, "");
      }
    }
  }

  const isView = (v) => ArrayBufferIsView(v) && viewTag(v) !== undefined;
  // A Buffer over the same memory as `view`.
  const over = (view) => new Buffer(viewBuffer(view), viewOffset(view), viewLength(view));
  const bytesView = (v) => (isView(v) ? new Uint8Array(viewBuffer(v), viewOffset(v), viewLength(v)) : v);

  class Buffer extends Uint8Array {
    static from(value, encodingOrOffset, length) {
      if (typeof value === "string") return over(bytesOf(value, normal(encodingOrOffset)));
      if (ObjectPrototypeIsPrototypeOf(ArrayBuffer.prototype, value) || (typeof SharedArrayBuffer === "function" && ObjectPrototypeIsPrototypeOf(SharedArrayBuffer.prototype, value))) {
        const offset = encodingOrOffset === undefined ? 0 : +encodingOrOffset;
        return new Buffer(value, offset, length === undefined ? value.byteLength - offset : +length);
      }
      if (isView(value)) {
        const copy = new Buffer(viewLength(value));
        TypedArraySet(copy, bytesView(value));
        return copy;
      }
      if (value !== null && typeof value === "object") {
        if (value.type === "Buffer" && ArrayIsArray(value.data)) return Buffer.from(value.data);
        if (typeof value.length === "number" || ArrayIsArray(value)) {
          const out = new Buffer(value.length >>> 0);
          for (let i = 0; i < out.length; i++) out[i] = value[i] & 0xff;
          return out;
        }
      }
      throw invalidArg("first", "of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object", value);
    }
    static alloc(size, fill, encoding) {
      checkSize(size);
      const out = new Buffer(size);
      if (fill !== undefined && fill !== 0) out.fill(fill, 0, size, encoding);
      return out;
    }
    static allocUnsafe(size) {
      checkSize(size);
      return new Buffer(size);
    }
    static byteLength(value, encoding) {
      if (typeof value === "string") return bytesOf(value, normal(encoding)).length;
      if (isView(value) || ObjectPrototypeIsPrototypeOf(ArrayBuffer.prototype, value)) return value.byteLength;
      throw invalidArg("string", "of type string or an instance of Buffer or ArrayBuffer", value);
    }
    static concat(list, totalLength) {
      if (!ArrayIsArray(list)) throw invalidArg("list", "an instance of Array", list);
      let total = 0;
      for (let i = 0; i < list.length; i++) {
        if (!isView(list[i])) throw invalidArg("list[" + i + "]", "an instance of Buffer or Uint8Array", list[i]);
        total += viewLength(list[i]);
      }
      if (totalLength !== undefined) total = totalLength;
      const out = new Buffer(total);
      let at = 0;
      for (let i = 0; i < list.length && at < total; i++) {
        let part = bytesView(list[i]);
        if (at + part.length > total) part = TypedArraySubarray(part, 0, total - at);
        TypedArraySet(out, part, at);
        at += part.length;
      }
      return out;
    }
    static isBuffer(value) {
      return ObjectPrototypeIsPrototypeOf(Buffer.prototype, value);
    }
    static isEncoding(encoding) {
      return typeof encoding === "string" && ENCODINGS.includes(StringPrototypeToLowerCase(encoding));
    }
    static compare(a, b) {
      if (!isView(a)) throw invalidArg("buf1", "an instance of Buffer or Uint8Array", a);
      if (!isView(b)) throw invalidArg("buf2", "an instance of Buffer or Uint8Array", b);
      const n = a.length < b.length ? a.length : b.length;
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
      return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
    }
    toString(encoding, start, end) {
      const n = this.length;
      const from = start === undefined ? 0 : Math.max(0, Math.min(n, start | 0));
      const to = end === undefined ? n : Math.max(from, Math.min(n, end | 0));
      return textOf(from === 0 && to === n ? this : TypedArraySubarray(this, from, to), normal(encoding));
    }
    toJSON() {
      return { type: "Buffer", data: ArrayPrototypeSlice(Array.from(this)) };
    }
    equals(other) {
      if (!isView(other)) throw invalidArg("otherBuffer", "an instance of Buffer or Uint8Array", other);
      return Buffer.compare(this, other) === 0;
    }
    compare(other) {
      return Buffer.compare(this, other);
    }
    slice(start, end) {
      return this.subarray(start, end);
    }
    subarray(start, end) {
      return over(TypedArraySubarray(this, start, end));
    }
    write(string, offset, length, encoding) {
      if (typeof offset === "string") { encoding = offset; offset = 0; length = undefined; }
      else if (typeof length === "string") { encoding = length; length = undefined; }
      offset = offset === undefined ? 0 : offset >>> 0;
      let bytes = bytesOf(String(string), normal(encoding));
      const room = this.length - offset;
      const n = Math.min(bytes.length, room, length === undefined ? room : length >>> 0);
      if (n < bytes.length) bytes = TypedArraySubarray(bytes, 0, n);
      TypedArraySet(this, bytes, offset);
      return n;
    }
    fill(value, offset, end, encoding) {
      if (typeof offset === "string") { encoding = offset; offset = 0; end = this.length; }
      const from = offset === undefined ? 0 : offset >>> 0;
      const to = end === undefined ? this.length : end >>> 0;
      if (typeof value === "number") {
        TypedArrayFill(this, value & 255, from, to);
        return this;
      }
      const pattern = typeof value === "string" ? bytesOf(value, normal(encoding)) : bytesView(value);
      if (pattern.length === 0) return TypedArrayFill(this, 0, from, to), this;
      for (let i = from, j = 0; i < to; i++, j = (j + 1) % pattern.length) this[i] = pattern[j];
      return this;
    }
    copy(target, targetStart, sourceStart, sourceEnd) {
      const from = sourceStart === undefined ? 0 : sourceStart >>> 0;
      const to = sourceEnd === undefined ? this.length : Math.min(this.length, sourceEnd >>> 0);
      const at = targetStart === undefined ? 0 : targetStart >>> 0;
      const n = Math.max(0, Math.min(to - from, target.length - at));
      TypedArraySet(target, TypedArraySubarray(this, from, from + n), at);
      return n;
    }
    indexOf(value, byteOffset, encoding) {
      return search(this, value, byteOffset, encoding);
    }
    includes(value, byteOffset, encoding) {
      return search(this, value, byteOffset, encoding) !== -1;
    }
  }
  function checkSize(size) {
    if (typeof size !== "number") throw invalidArg("size", "of type number", size);
    if (!(size >= 0 && size <= 0x7fffffff)) throw nodeError(RangeError, "ERR_OUT_OF_RANGE", 'The value of "size" is out of range. It must be >= 0 && <= 2147483647. Received ' + size);
  }
  function search(buf, value, byteOffset, encoding) {
    if (typeof byteOffset === "string") { encoding = byteOffset; byteOffset = 0; }
    let from = byteOffset === undefined ? 0 : byteOffset | 0;
    if (from < 0) from = Math.max(0, buf.length + from);
    if (typeof value === "number") {
      for (let i = from; i < buf.length; i++) if (buf[i] === (value & 255)) return i;
      return -1;
    }
    const needle = typeof value === "string" ? bytesOf(value, normal(encoding)) : bytesView(value);
    if (needle.length === 0) return from <= buf.length ? from : buf.length;
    outer: for (let i = from; i + needle.length <= buf.length; i++) {
      for (let j = 0; j < needle.length; j++) if (buf[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }
  // readUInt8/16/32 and readInt8/16/32 (LE and BE), and their write*.
  const checkOffset = (buf, offset, size) => {
    if (offset === undefined) offset = 0;
    if (typeof offset !== "number") throw invalidArg("offset", "of type number", offset);
    if (offset < 0 || offset + size > buf.length || offset !== (offset | 0)) {
      throw nodeError(RangeError, "ERR_OUT_OF_RANGE", 'The value of "offset" is out of range. It must be >= 0 and <= ' + (buf.length - size) + ". Received " + offset);
    }
    return offset;
  };
  for (const [size, name] of [[1, "8"], [2, "16"], [4, "32"]]) {
    for (const endian of size === 1 ? [""] : ["LE", "BE"]) {
      const get = function (offset, signed) {
        offset = checkOffset(this, offset, size);
        let v = 0;
        for (let i = 0; i < size; i++) v = v * 256 + this[offset + (endian === "LE" ? size - 1 - i : i)];
        return signed && v >= 2 ** (8 * size - 1) ? v - 2 ** (8 * size) : v;
      };
      const set = function (value, offset) {
        offset = checkOffset(this, offset, size);
        let v = +value;
        if (v < 0) v += 2 ** (8 * size);
        for (let i = 0; i < size; i++) {
          this[offset + (endian === "LE" ? i : size - 1 - i)] = v & 255;
          v = Math.floor(v / 256);
        }
        return offset + size;
      };
      for (const prefix of ["UInt", "Uint", "Int"]) {
        const signed = prefix === "Int";
        hidden(Buffer.prototype, "read" + prefix + name + endian, function (offset) { return get.call(this, offset, signed); });
        hidden(Buffer.prototype, "write" + prefix + name + endian, set);
      }
    }
  }
  hidden(global, "Buffer", Buffer);
  // <Buffer 68 69>, at most 50 bytes, as Node shows a Buffer.
  inspectAs(Buffer.prototype, (b) => {
    const n = viewLength(b);
    const hex = [];
    for (let i = 0; i < Math.min(n, 50); i++) ArrayPrototypePush(hex, (b[i] < 16 ? "0" : "") + b[i].toString(16));
    const more = n > 50 ? " ... " + (n - 50) + " more byte" + (n - 50 > 1 ? "s" : "") : "";
    return "<Buffer " + ArrayPrototypeJoin(hex, " ") + more + ">";
  });

  // ---- crypto ------------------------------------------------------------

  const HASHES = { __proto__: null, sha1: "sha1", "sha-1": "sha1", sha256: "sha256", "sha-256": "sha256", sha384: "sha384", "sha-384": "sha384", sha512: "sha512", "sha-512": "sha512" };
  const hashName = (name) => {
    const h = HASHES[StringPrototypeToLowerCase(String(name))];
    if (h === undefined) throw nodeError(Error, "ERR_OSSL_EVP_UNSUPPORTED", "Digest method not supported: " + String(name) + " (cordon has sha1, sha256, sha384, sha512)");
    return h;
  };
  const dataBytes = (data, encoding, what) => {
    if (typeof data === "string") return bytesOf(data, normal(encoding));
    if (isView(data)) return bytesView(data);
    if (ObjectPrototypeIsPrototypeOf(ArrayBuffer.prototype, data)) return new Uint8Array(data);
    if (ArrayBufferIsView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw invalidArg(what, "of type string or an instance of Buffer, TypedArray, or DataView", data);
  };
  class Hash {
    #algorithm; #key; #chunks = []; #done = false;
    constructor(algorithm, key) {
      this.#algorithm = hashName(algorithm);
      this.#key = key;
    }
    update(data, encoding) {
      if (this.#done) throw nodeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
      ArrayPrototypePush(this.#chunks, Buffer.from(dataBytes(data, encoding, "data")));
      return this;
    }
    digest(encoding) {
      if (this.#done) throw nodeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
      this.#done = true;
      const data = Buffer.concat(this.#chunks);
      const out = over(this.#key === undefined ? digest(this.#algorithm, data) : digest(this.#algorithm, data, this.#key));
      return encoding === undefined || encoding === "buffer" ? out : out.toString(encoding);
    }
  }
  const cryptoObject = global.crypto;
  const subtle = {
    async digest(algorithm, data) {
      const name = typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm;
      const out = digest(hashName(name), new Uint8Array(dataBytes(data, undefined, "data")));
      return viewBuffer(out);
    },
    async importKey(format, keyData, algorithm, extractable, usages) {
      if (format !== "raw") throw new DOMExceptionLike("cordon imports raw keys only", "NotSupportedError");
      if (algorithm === null || typeof algorithm !== "object" || StringPrototypeToLowerCase(String(algorithm.name)) !== "hmac") {
        throw new DOMExceptionLike("cordon's subtle supports HMAC keys only", "NotSupportedError");
      }
      const hash = typeof algorithm.hash === "object" && algorithm.hash !== null ? algorithm.hash.name : algorithm.hash;
      const key = Buffer.from(dataBytes(keyData, undefined, "keyData"));
      const hashAlgorithm = { name: "SHA-" + StringPrototypeSlice(hashName(hash), 3) };
      return new CryptoKey(key, { name: "HMAC", hash: hashAlgorithm, length: key.length * 8 }, !!extractable, ArrayIsArray(usages) ? ArrayPrototypeSlice(usages) : []);
    },
    async sign(algorithm, key, data) {
      return viewBuffer(hmacOf(algorithm, key, data, "sign"));
    },
    async verify(algorithm, key, signature, data) {
      const expected = hmacOf(algorithm, key, data, "verify");
      return timingSafe(expected, dataBytes(signature, undefined, "signature"));
    },
  };
  const keys = new WeakMap();
  class CryptoKey {
    constructor(key, algorithm, extractable, usages) {
      keys.set(this, key);
      hidden(this, "type", "secret");
      hidden(this, "algorithm", algorithm);
      hidden(this, "extractable", extractable);
      hidden(this, "usages", usages);
    }
  }
  class DOMExceptionLike extends Error {
    constructor(message, name) {
      super(message);
      hidden(this, "name", name);
    }
  }
  function hmacOf(algorithm, key, data, usage) {
    const name = typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm;
    const secret = keys.get(key);
    if (StringPrototypeToLowerCase(String(name)) !== "hmac" || secret === undefined) {
      throw new DOMExceptionLike("cordon's subtle signs with HMAC keys from importKey only", "InvalidAccessError");
    }
    if (!key.usages.includes(usage)) throw new DOMExceptionLike("the key's usages do not include " + usage, "InvalidAccessError");
    return digest(hashName(key.algorithm.hash.name), new Uint8Array(dataBytes(data, undefined, "data")), secret);
  }
  function timingSafe(a, b) {
    if (a.length !== b.length) return false;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  }
  if (cryptoObject) hidden(cryptoObject, "subtle", subtle);

  // ---- standard input ----------------------------------------------------
  // The run's `stdin` bytes, read once: by fs.readFileSync(0) or by
  // process.stdin, a Readable that delivers them in 64 KiB chunks from the
  // next turn of the event loop (on a 'data' listener, resume(), pipe() or
  // async iteration), or through read() on 'readable'; then 'end', 'close'.
  const setImmediateOriginal = global.setImmediate;
  const stdinBytes = takeStdin;
  function makeStdin() {
    const EventEmitter = req("events");
    const CHUNK = 65536;
    let decoder, queue, scheduled = false, paused = true, ended = false;
    const load = () => {
      if (queue !== undefined) return;
      const bytes = over(stdinBytes());
      queue = [];
      for (let at = 0; at < bytes.length; at += CHUNK) ArrayPrototypePush(queue, TypedArraySubarray(bytes, at, Math.min(bytes.length, at + CHUNK)));
    };
    // setEncoding's: UTF-8 decoded across chunks, other encodings per chunk.
    let encoding;
    const shown = (chunk) => (encoding === undefined ? chunk : decoder !== undefined ? decoder.decode(chunk, { stream: true }) : chunk.toString(encoding));
    const finish = () => {
      if (ended) return;
      ended = true;
      stdin.readableEnded = true;
      stdin.emit("end");
      setImmediateOriginal(() => stdin.emit("close"));
    };
    const pump = () => {
      scheduled = false;
      load();
      if (stdin.listenerCount("readable") > 0 && paused) {
        stdin.emit("readable");
        if (queue.length === 0) finish();
        return;
      }
      while (!paused && queue.length) stdin.emit("data", shown(queue.shift()));
      if (!paused && queue.length === 0) finish();
    };
    const schedule = () => {
      if (scheduled || ended) return;
      scheduled = true;
      setImmediateOriginal(pump);
    };
    class ReadStream extends EventEmitter {
      // (on and once come here.)
      addListener(name, listener) {
        super.addListener(name, listener);
        if (name === "data" && paused && this.listenerCount("readable") === 0) this.resume();
        else if (name === "readable" || name === "end") schedule();
        return this;
      }
      setEncoding(name) {
        encoding = normal(name);
        decoder = encoding === "utf8" ? new global.TextDecoder() : undefined;
        return this;
      }
      resume() { paused = false; schedule(); return this; }
      pause() { paused = true; return this; }
      isPaused() { return paused; }
      // All that is left, as one Buffer (or string), else null.
      read() {
        load();
        if (queue.length === 0) {
          schedule();
          return null;
        }
        const all = Buffer.concat(queue);
        queue = [];
        schedule();
        return shown(all);
      }
      pipe(destination) {
        this.on("data", (chunk) => destination.write(chunk));
        return destination;
      }
      unref() { return this; }
      ref() { return this; }
      async *[Symbol.asyncIterator]() {
        load();
        paused = false;
        while (queue.length) yield shown(queue.shift());
        finish();
      }
    }
    const stdin = new ReadStream();
    stdin.fd = 0;
    stdin.readable = true;
    stdin.readableEnded = false;
    return stdin;
  }
  // A new stream for each run (the realm outlives runs).
  let stdinStream;
  onRun(() => { stdinStream = undefined; });
  ObjectDefineProperty(global.process, "stdin", { __proto__: null, enumerable: true, configurable: true, get: () => (stdinStream ??= makeStdin()) });

  // node:readline over any stream with 'data' and 'end' (process.stdin):
  // 'line' for each line (\n, \r\n or \r ends one), then 'close'; async
  // iteration over the lines; question() answered by the next line.
  function makeReadline() {
    const EventEmitter = req("events");
    class Interface extends EventEmitter {
      constructor(input, output) {
        super();
        const options = input !== null && typeof input === "object" && !(input instanceof EventEmitter) ? input : { input, output };
        this.input = options.input;
        this.output = options.output;
        this.closed = false;
        this.line = "";
        this._prompt = options.prompt === undefined ? "> " : String(options.prompt);
        this._answers = [];
        const decoder = new global.TextDecoder();
        let rest = "";
        const lines = (text) => {
          rest += text;
          let from = 0;
          for (let i = 0; i < rest.length; i++) {
            const c = rest[i];
            if (c !== "\n" && c !== "\r") continue;
            if (c === "\r" && i + 1 === rest.length) break;
            const line = StringPrototypeSlice(rest, from, i);
            if (c === "\r" && rest[i + 1] === "\n") i++;
            from = i + 1;
            this._line(line);
            if (this.closed) return;
          }
          rest = StringPrototypeSlice(rest, from);
        };
        if (this.input && typeof this.input.on === "function") {
          this.input.on("data", (chunk) => {
            if (!this.closed) lines(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
          });
          this.input.on("end", () => {
            if (this.closed) return;
            const last = rest + decoder.decode();
            rest = "";
            if (last.length) this._line(StringPrototypeEndsWith(last, "\r") ? StringPrototypeSlice(last, 0, -1) : last);
            this.close();
          });
        }
      }
      _line(line) {
        const answer = this._answers.shift();
        if (answer) answer(line);
        else this.emit("line", line);
      }
      close() {
        if (this.closed) return;
        this.closed = true;
        this.emit("close");
      }
      setPrompt(prompt) { this._prompt = String(prompt); }
      getPrompt() { return this._prompt; }
      prompt() { if (this.output && typeof this.output.write === "function") this.output.write(this._prompt); }
      write(data) { if (this.output && typeof this.output.write === "function") this.output.write(data); }
      question(query, options, callback) {
        if (typeof options === "function") callback = options;
        if (this.output && typeof this.output.write === "function") this.output.write(String(query));
        ArrayPrototypePush(this._answers, typeof callback === "function" ? callback : () => {});
      }
      pause() { return this; }
      resume() { return this; }
      [Symbol.asyncIterator]() {
        const queue = [];
        const waiting = [];
        let done = false;
        this.on("line", (line) => {
          const w = waiting.shift();
          if (w) w({ value: line, done: false });
          else ArrayPrototypePush(queue, line);
        });
        this.on("close", () => {
          done = true;
          while (waiting.length) waiting.shift()({ value: undefined, done: true });
        });
        return {
          next: () => {
            if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
            if (done) return Promise.resolve({ value: undefined, done: true });
            return new Promise((resolve) => ArrayPrototypePush(waiting, resolve));
          },
          return: () => {
            this.close();
            return Promise.resolve({ value: undefined, done: true });
          },
          [Symbol.asyncIterator]() { return this; },
        };
      }
    }
    const createInterface = (input, output) => new Interface(input, output);
    return { Interface, createInterface };
  }

  // ---- modules -----------------------------------------------------------

  const cwd = () => global.process.cwd();
  const path = makePath(cwd);
  const makers = {
    __proto__: null,
    path: () => path,
    "path/posix": () => path,
    fs: () => makeFs(),
    "fs/promises": () => req("fs").promises,
    util: () => makeUtil(),
    events: () => makeEvents(),
    buffer: () => ({ Buffer, constants: { MAX_LENGTH: 0x7fffffff, MAX_STRING_LENGTH: 0x3fffffe8 }, kMaxLength: 0x7fffffff, atob: global.atob, btoa: global.btoa }),
    crypto: () => ({
      createHash: (algorithm) => new Hash(algorithm),
      createHmac: (algorithm, key) => new Hash(algorithm, Buffer.from(dataBytes(key, undefined, "key"))),
      randomBytes: (n) => {
        checkSize(n);
        const out = Buffer.alloc(n);
        for (let at = 0; at < n; at += 65536) cryptoObject.getRandomValues(TypedArraySubarray(out, at, Math.min(n, at + 65536)));
        return out;
      },
      randomUUID: () => cryptoObject.randomUUID(),
      getRandomValues: (a) => cryptoObject.getRandomValues(a),
      timingSafeEqual: (a, b) => {
        if (a.byteLength !== b.byteLength) throw nodeError(RangeError, "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH", "Input buffers must have the same byte length");
        return timingSafe(dataBytes(a, undefined, "buf1"), dataBytes(b, undefined, "buf2"));
      },
      getHashes: () => ["sha1", "sha256", "sha384", "sha512"],
      webcrypto: cryptoObject,
      subtle,
    }),
    url: () => {
      const url = {};
      lazy(url, "URL", () => global.URL);
      lazy(url, "URLSearchParams", () => global.URLSearchParams);
      url.fileURLToPath = (u) => {
        const s = typeof u === "string" ? u : String(u && u.href);
        if (!StringPrototypeStartsWith(s, "file://")) throw nodeError(TypeError, "ERR_INVALID_URL_SCHEME", "The URL must be of scheme file");
        return decodeURIComponent(StringPrototypeSlice(s, 7));
      };
      url.pathToFileURL = (p) => {
        const href = "file://" + encodeURI(path.resolve(p));
        return typeof global.URL === "function" ? new global.URL(href) : { href };
      };
      return url;
    },
    process: () => global.process,
    readline: () => makeReadline(),
  };
  const cache = { __proto__: null };
  const BUILTINS = ObjectKeys(makers);
  function req(id) {
    if (typeof id !== "string") throw invalidArg("id", "of type string", id);
    const prefixed = StringPrototypeStartsWith(id, "node:");
    const name = prefixed ? StringPrototypeSlice(id, 5) : id;
    const made = cache[name];
    if (made !== undefined) return made;
    const make = makers[name];
    if (make === undefined) {
      const list = "cordon provides " + ArrayPrototypeJoin(BUILTINS, ", ") + " (with or without node:)";
      if (prefixed) throw nodeError(Error, "ERR_UNKNOWN_BUILTIN_MODULE", "No such built-in module: " + id + "; " + list);
      const e = nodeError(Error, "MODULE_NOT_FOUND", "Cannot find module '" + id + "': the sandbox has no packages or module files; " + list);
      throw e;
    }
    const module = make();
    if (module !== null && typeof module === "object" && !("default" in module)) hidden(module, "default", module);
    cache[name] = module;
    return module;
  }
  hidden(global, "require", function require(id) {
    return req(id);
  });

  // process is an EventEmitter, as in Node. Its listeners belong to the
  // run that added them; the prelude emits through the methods taken here.
  {
    const processObject = global.process;
    const proto = req("events").prototype;
    Object.setPrototypeOf(processObject, proto);
    const emit = uncurryThis(proto.emit), count = uncurryThis(proto.listenerCount);
    // Dropped only when some were added (a run's start stays cheap).
    onRun(() => { if (processObject._events !== undefined) processObject._events = undefined; });
    processEvents((name, a, b) => emit(processObject, name, a, b), (name) => count(processObject, name));
  }

  function makeFs() {
    const base = global.fs;
    const asBuffer = (v) => (typeof v === "string" ? v : over(v));
    const read = (p, options) => {
      const enc = typeof options === "string" ? options : options && typeof options === "object" ? options.encoding : undefined;
      // File descriptor 0 (and /dev/stdin) is the run's standard input.
      if (p === 0 || p === "/dev/stdin") {
        const bytes = over(stdinBytes());
        return enc === undefined || enc === null || enc === "buffer" ? bytes : bytes.toString(normal(enc));
      }
      if (enc === undefined || enc === null || enc === "buffer") return over(base.readFileSync(p));
      const e = normal(enc);
      return e === "utf8" ? base.readFileSync(p, "utf8") : over(base.readFileSync(p)).toString(e);
    };
    const fs = {};
    const keys = ObjectKeys(base);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== "promises") fs[keys[i]] = base[keys[i]];
    fs.readFileSync = read;
    fs.readFile = function readFile(p, options, callback) {
      if (typeof options === "function") { callback = options; options = undefined; }
      // The callback form, as Node's fs has it; without one, a promise.
      if (typeof callback === "function") {
        let result, error = null;
        try { result = read(p, options); } catch (e) { error = e; }
        Promise.resolve().then(() => callback(error, result));
        return;
      }
      return Promise.resolve().then(() => asBuffer(read(p, options)));
    };
    const promises = {};
    const pkeys = ObjectKeys(base.promises);
    for (let i = 0; i < pkeys.length; i++) promises[pkeys[i]] = base.promises[pkeys[i]];
    promises.readFile = async (p, options) => read(p, options);
    promises.access = async (p) => void base.statSync(p);
    fs.accessSync = (p) => void base.statSync(p);
    fs.promises = promises;
    fs.constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 };
    return fs;
  }

  function makeUtil() {
    // The console's formatter (reached through the helper that prints an
    // uncaught value), for `inspect`.
    // (value, options), or the old (value, showHidden, depth).
    function inspect(value, options) {
      if (typeof options === "boolean" || (options === undefined && arguments.length > 2)) return inspectValue(value, { depth: arguments[2] });
      return inspectValue(value, options);
    }
    // The console's formatting (printf-style substitutions, then the rest inspected).
    function format(...args) {
      return formatArgs(args);
    }
    const custom = Symbol.for("nodejs.util.promisify.custom");
    function promisify(fn) {
      if (typeof fn !== "function") throw invalidArg("original", "of type function", fn);
      if (typeof fn[custom] === "function") return fn[custom];
      return function (...args) {
        return new Promise((resolve, reject) => {
          fn.call(this, ...args, (err, value) => (err ? reject(err) : resolve(value)));
        });
      };
    }
    const tag = (v) => Object.prototype.toString.call(v);
    const types = {
      isDate: (v) => tag(v) === "[object Date]",
      isRegExp: (v) => tag(v) === "[object RegExp]",
      isPromise: (v) => tag(v) === "[object Promise]",
      isMap: (v) => tag(v) === "[object Map]",
      isSet: (v) => tag(v) === "[object Set]",
      isArrayBuffer: (v) => tag(v) === "[object ArrayBuffer]",
      isTypedArray: (v) => isView(v),
      isUint8Array: (v) => isView(v) && viewTag(v) === "Uint8Array",
      isNativeError: (v) => tag(v) === "[object Error]",
      isAsyncFunction: (v) => tag(v) === "[object AsyncFunction]",
    };
    const util = {
      format,
      inspect,
      promisify,
      types,
      inherits(ctor, superCtor) {
        Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
        Object.setPrototypeOf(ctor, superCtor);
      },
      isArray: ArrayIsArray,
      isDeepStrictEqual: (a, b) => deepEqual(a, b),
    };
    hidden(promisify, "custom", custom);
    hidden(inspect, "custom", Symbol.for("nodejs.util.inspect.custom"));
    lazy(util, "TextEncoder", () => global.TextEncoder);
    lazy(util, "TextDecoder", () => global.TextDecoder);
    return util;
  }
  function deepEqual(a, b) {
    if (Object.is(a, b)) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    const ka = ObjectKeys(a), kb = ObjectKeys(b);
    if (ka.length !== kb.length) return false;
    for (let i = 0; i < ka.length; i++) if (!Object.prototype.hasOwnProperty.call(b, ka[i]) || !deepEqual(a[ka[i]], b[ka[i]])) return false;
    return true;
  }

  function makeEvents() {
    const listenersOf = (emitter, name) => {
      const all = emitter._events ??= { __proto__: null };
      return (all[name] ??= []);
    };
    class EventEmitter {
      on(name, listener) { return this.addListener(name, listener); }
      addListener(name, listener) {
        if (typeof listener !== "function") throw invalidArg("listener", "of type function", listener);
        if (this._events && this._events.newListener) this.emit("newListener", name, listener);
        ArrayPrototypePush(listenersOf(this, name), listener);
        return this;
      }
      prependListener(name, listener) {
        if (typeof listener !== "function") throw invalidArg("listener", "of type function", listener);
        listenersOf(this, name).unshift(listener);
        return this;
      }
      once(name, listener) {
        if (typeof listener !== "function") throw invalidArg("listener", "of type function", listener);
        const wrapper = (...args) => {
          this.removeListener(name, wrapper);
          return listener.apply(this, args);
        };
        wrapper.listener = listener;
        return this.on(name, wrapper);
      }
      off(name, listener) { return this.removeListener(name, listener); }
      removeListener(name, listener) {
        const list = listenersOf(this, name);
        for (let i = list.length - 1; i >= 0; i--) {
          if (list[i] === listener || list[i].listener === listener) {
            list.splice(i, 1);
            break;
          }
        }
        return this;
      }
      removeAllListeners(name) {
        if (name === undefined) this._events = { __proto__: null };
        else if (this._events) delete this._events[name];
        return this;
      }
      emit(name, ...args) {
        const list = this._events && this._events[name];
        if (!list || list.length === 0) {
          if (name === "error") {
            const err = args[0];
            if (err instanceof Error) throw err;
            throw nodeError(Error, "ERR_UNHANDLED_ERROR", "Unhandled error. (" + formatValue(err) + ")");
          }
          return false;
        }
        const copy = ArrayPrototypeSlice(list);
        for (let i = 0; i < copy.length; i++) copy[i].apply(this, args);
        return true;
      }
      listenerCount(name) { return this._events && this._events[name] ? this._events[name].length : 0; }
      listeners(name) {
        const list = this._events && this._events[name];
        const out = [];
        if (list) for (let i = 0; i < list.length; i++) ArrayPrototypePush(out, list[i].listener || list[i]);
        return out;
      }
      eventNames() { return this._events ? ObjectKeys(this._events).filter((k) => this._events[k].length > 0) : []; }
      setMaxListeners() { return this; }
      getMaxListeners() { return 10; }
    }
    const formatValue = (v) => (typeof v === "string" ? "'" + v + "'" : String(v));
    EventEmitter.EventEmitter = EventEmitter;
    EventEmitter.defaultMaxListeners = 10;
    EventEmitter.once = (emitter, name) =>
      new Promise((resolve, reject) => {
        const onError = (err) => { emitter.removeListener(name, onEvent); reject(err); };
        const onEvent = (...args) => { if (name !== "error") emitter.removeListener("error", onError); resolve(args); };
        emitter.once(name, onEvent);
        if (name !== "error") emitter.once("error", onError);
      });
    return EventEmitter;
  }

  // node:path, POSIX.
  function makePath(cwd) {
    const check = (p, name) => {
      if (typeof p !== "string") throw invalidArg(name, "of type string", p);
    };
    function normalizeParts(p, absolute) {
      const parts = p.split("/");
      const out = [];
      for (let i = 0; i < parts.length; i++) {
        const s = parts[i];
        if (s === "" || s === ".") continue;
        if (s === "..") {
          if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
          else if (!absolute) ArrayPrototypePush(out, "..");
        } else ArrayPrototypePush(out, s);
      }
      return ArrayPrototypeJoin(out, "/");
    }
    const path = {
      sep: "/",
      delimiter: ":",
      normalize(p) {
        check(p, "path");
        if (p === "") return ".";
        const absolute = p[0] === "/";
        const trailing = p[p.length - 1] === "/";
        let out = normalizeParts(p, absolute);
        if (out === "" && !absolute) out = ".";
        if (out !== "" && trailing) out += "/";
        return absolute ? "/" + out : out;
      },
      join(...parts) {
        for (let i = 0; i < parts.length; i++) check(parts[i], "path");
        const joined = ArrayPrototypeJoin(parts.filter((s) => s !== ""), "/");
        return joined === "" ? "." : path.normalize(joined);
      },
      resolve(...parts) {
        let resolved = "";
        for (let i = parts.length - 1; i >= -1 && resolved[0] !== "/"; i--) {
          const p = i >= 0 ? parts[i] : cwd();
          check(p, "paths[" + i + "]");
          if (p === "") continue;
          resolved = resolved === "" ? p : p + "/" + resolved;
        }
        const out = normalizeParts(resolved, true);
        return "/" + out;
      },
      isAbsolute(p) {
        check(p, "path");
        return p.length > 0 && p[0] === "/";
      },
      dirname(p) {
        check(p, "path");
        if (p === "") return ".";
        let end = p.length;
        while (end > 1 && p[end - 1] === "/") end--;
        const at = StringPrototypeLastIndexOf(StringPrototypeSlice(p, 0, end), "/");
        if (at < 0) return ".";
        if (at === 0) return "/";
        let cut = at;
        while (cut > 1 && p[cut - 1] === "/") cut--;
        return StringPrototypeSlice(p, 0, cut);
      },
      basename(p, ext) {
        check(p, "path");
        let end = p.length;
        while (end > 0 && p[end - 1] === "/") end--;
        const trimmed = StringPrototypeSlice(p, 0, end);
        let base = StringPrototypeSlice(trimmed, StringPrototypeLastIndexOf(trimmed, "/") + 1);
        if (typeof ext === "string" && ext !== base && base.endsWith(ext)) base = StringPrototypeSlice(base, 0, base.length - ext.length);
        return base;
      },
      extname(p) {
        const base = path.basename(p);
        const dot = StringPrototypeLastIndexOf(base, ".");
        return dot <= 0 ? "" : StringPrototypeSlice(base, dot);
      },
      relative(from, to) {
        const a = StringPrototypeSlice(path.resolve(from), 1).split("/").filter((s) => s !== "");
        const b = StringPrototypeSlice(path.resolve(to), 1).split("/").filter((s) => s !== "");
        let i = 0;
        while (i < a.length && i < b.length && a[i] === b[i]) i++;
        const up = [];
        for (let j = i; j < a.length; j++) ArrayPrototypePush(up, "..");
        return ArrayPrototypeJoin(up.concat(b.slice(i)), "/");
      },
      parse(p) {
        check(p, "path");
        const root = p[0] === "/" ? "/" : "";
        const base = path.basename(p);
        const ext = path.extname(p);
        let dir = path.dirname(p);
        if (dir === "." && !StringPrototypeStartsWith(p, ".")) dir = "";
        return { root, dir, base, ext, name: ext ? StringPrototypeSlice(base, 0, base.length - ext.length) : base };
      },
      format(o) {
        const dir = o.dir || o.root || "";
        const base = o.base || (o.name || "") + (o.ext ? (o.ext[0] === "." ? "" : ".") + o.ext : "");
        return dir === "" ? base : dir === o.root ? dir + base : dir + "/" + base;
      },
      toNamespacedPath: (p) => p,
    };
    path.posix = path;
    return path;
  }
})
