
  // ---- Web APIs ----------------------------------------------------------
  // DOMException, TextEncoder/TextDecoder (UTF-8), atob/btoa,
  // structuredClone, Event/EventTarget, AbortController/AbortSignal.

  const DOM_CODES = { __proto__: null, InvalidCharacterError: 5, AbortError: 20, TimeoutError: 23, DataCloneError: 25 };
  class DOMException extends Error {
    constructor(message = "", name = "Error") {
      super(toStr(message));
      setOwn(this, "name", toStr(name));
      hidden(this, "code", DOM_CODES[toStr(name)] || 0);
    }
  }
  hidden(global, "DOMException", DOMException);

  // ---- TextEncoder / TextDecoder
  function utf8(s) {
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      let c = StringPrototypeCharCodeAt(s, i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = StringPrototypeCharCodeAt(s, i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) ArrayPrototypePush(bytes, c);
      else if (c < 0x800) ArrayPrototypePush(bytes, 0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) ArrayPrototypePush(bytes, 0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else ArrayPrototypePush(bytes, 0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return bytes;
  }
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      const bytes = utf8(toStr(input));
      const out = new Uint8Array(bytes.length);
      for (let i = 0; i < bytes.length; i++) out[i] = bytes[i];
      return out;
    }
    encodeInto(input, dest) {
      const s = toStr(input);
      let read = 0, written = 0;
      for (let i = 0; i < s.length;) {
        const c = StringPrototypeCodePointAt(s, i);
        const units = c > 0xffff ? 2 : 1;
        const bytes = utf8(StringPrototypeSlice(s, i, i + units));
        if (written + bytes.length > TypedArrayPrototypeGetLength(dest)) break;
        for (let b = 0; b < bytes.length; b++) dest[written++] = bytes[b];
        read += units;
        i += units;
      }
      return { read, written };
    }
  }
  const bytesOf = (input) => {
    if (input === undefined) return new Uint8Array(0);
    if (isA(input, ArrayBufferPrototype)) return new Uint8Array(input);
    if (ArrayBufferIsView(input)) return toData(input);
    throw new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView. Received ' + received(input));
  };
  const decoderState = new WeakMap();
  class TextDecoder {
    constructor(encoding = "utf-8", options = undefined) {
      const name = StringPrototypeToLowerCase(StringPrototypeTrim(toStr(encoding)));
      const enc = MapPrototypeGet(DECODER_LABELS, name);
      if (enc === undefined) {
        const e = new RangeError('The "' + toStr(encoding) + '" encoding is not supported');
        setOwn(e, "code", "ERR_ENCODING_NOT_SUPPORTED");
        throw e;
      }
      const fatal = !!(options && options.fatal), ignoreBOM = !!(options && options.ignoreBOM);
      WeakMapPrototypeSet(decoderState, this, { __proto__: null, enc, fatal, ignoreBOM, needed: 0, seen: 0, cp: 0, lower: 0x80, upper: 0xbf, bomSeen: false, odd: -1, high: 0 });
    }
    get encoding() { return WeakMapPrototypeGet(decoderState, this).enc; }
    get fatal() { return WeakMapPrototypeGet(decoderState, this).fatal; }
    get ignoreBOM() { return WeakMapPrototypeGet(decoderState, this).ignoreBOM; }
    decode(input = undefined, options = undefined) {
      const st = WeakMapPrototypeGet(decoderState, this);
      if (st === undefined) throw new TypeError("Value of \"this\" must be of type TextDecoder");
      const bytes = bytesOf(input);
      const stream = !!(options && options.stream);
      if (st.enc !== "utf-8") return decodeOther(st, bytes, stream);
      const out = [];
      let chunk = [];
      const put = (c) => {
        if (c > 0xffff) {
          c -= 0x10000;
          ArrayPrototypePush(chunk, 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
        } else ArrayPrototypePush(chunk, c);
        if (chunk.length >= 8192) { ArrayPrototypePush(out, ReflectApply(StringFromCharCode, undefined, chunk)); chunk = []; }
      };
      const bad = () => {
        st.needed = 0; st.seen = 0; st.cp = 0; st.lower = 0x80; st.upper = 0xbf;
        if (st.fatal) {
          const e = new TypeError("The encoded data was not valid for encoding utf-8");
          setOwn(e, "code", "ERR_ENCODING_INVALID_ENCODED_DATA");
          throw e;
        }
        put(0xfffd);
      };
      // The WHATWG UTF-8 decoder, one byte at a time.
      const n = TypedArrayPrototypeGetLength(bytes);
      for (let i = 0; i < n; i++) {
        const b = bytes[i];
        if (st.needed === 0) {
          if (b <= 0x7f) put(b);
          else if (b >= 0xc2 && b <= 0xdf) { st.needed = 1; st.cp = b & 0x1f; }
          else if (b >= 0xe0 && b <= 0xef) {
            if (b === 0xe0) st.lower = 0xa0;
            if (b === 0xed) st.upper = 0x9f;
            st.needed = 2; st.cp = b & 0xf;
          } else if (b >= 0xf0 && b <= 0xf4) {
            if (b === 0xf0) st.lower = 0x90;
            if (b === 0xf4) st.upper = 0x8f;
            st.needed = 3; st.cp = b & 0x7;
          } else bad();
          continue;
        }
        if (b < st.lower || b > st.upper) {
          bad();
          i--; // the byte starts over
          continue;
        }
        st.lower = 0x80; st.upper = 0xbf;
        st.cp = (st.cp << 6) | (b & 0x3f);
        if (++st.seen === st.needed) {
          const c = st.cp;
          st.needed = 0; st.seen = 0; st.cp = 0;
          put(c);
        }
      }
      if (!stream && st.needed !== 0) bad();
      ArrayPrototypePush(out, ReflectApply(StringFromCharCode, undefined, chunk));
      let text = ArrayPrototypeJoin(out, "");
      if (!st.ignoreBOM && !st.bomSeen && text.length) {
        if (StringPrototypeCharCodeAt(text, 0) === 0xfeff) text = StringPrototypeSlice(text, 1);
        st.bomSeen = true;
      }
      if (!stream) st.bomSeen = false;
      return text;
    }
  }
  // The WHATWG labels of the encodings TextDecoder knows, and their names.
  const DECODER_LABELS = new Map();
  const labels = (name, list) => { for (let i = 0; i < list.length; i++) MapPrototypeSet(DECODER_LABELS, list[i], name); };
  labels("utf-8", ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]);
  labels("utf-16le", ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]);
  labels("utf-16be", ["unicodefffe", "utf-16be"]);
  labels("windows-1252", ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
    "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"]);
  // windows-1252's 0x80 to 0x9F (its other bytes are their own code points).
  const CP1252 = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
    0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
  // UTF-16 (either byte order) and windows-1252, as the WHATWG decoders do.
  function decodeOther(st, bytes, stream) {
    const units = [];
    const out = [];
    const flush = () => { ArrayPrototypePush(out, ReflectApply(StringFromCharCode, undefined, units)); ArrayPrototypeSplice(units, 0, units.length); };
    const put = (u) => { ArrayPrototypePush(units, u); if (units.length >= 8192) flush(); };
    const bad = () => {
      if (st.fatal) {
        const e = new TypeError("The encoded data was not valid for encoding " + st.enc);
        setOwn(e, "code", "ERR_ENCODING_INVALID_ENCODED_DATA");
        throw e;
      }
      put(0xfffd);
    };
    const n = TypedArrayPrototypeGetLength(bytes);
    if (st.enc === "windows-1252") {
      for (let i = 0; i < n; i++) { const b = bytes[i]; put(b >= 0x80 && b <= 0x9f ? CP1252[b - 0x80] : b); }
    } else {
      const le = st.enc === "utf-16le";
      for (let i = 0; i < n; i++) {
        if (st.odd < 0) { st.odd = bytes[i]; continue; }
        const u = le ? st.odd | (bytes[i] << 8) : (st.odd << 8) | bytes[i];
        st.odd = -1;
        if (st.high) {
          if (u >= 0xdc00 && u <= 0xdfff) { put(st.high); put(u); st.high = 0; continue; }
          st.high = 0;
          bad();
        }
        if (u >= 0xd800 && u <= 0xdbff) st.high = u;
        else if (u >= 0xdc00 && u <= 0xdfff) bad();
        else put(u);
      }
      if (!stream && (st.odd >= 0 || st.high)) { st.odd = -1; st.high = 0; bad(); }
    }
    flush();
    let text = ArrayPrototypeJoin(out, "");
    if (st.enc !== "windows-1252" && !st.ignoreBOM && !st.bomSeen && text.length) {
      if (StringPrototypeCharCodeAt(text, 0) === 0xfeff) text = StringPrototypeSlice(text, 1);
      st.bomSeen = true;
    }
    if (!stream) st.bomSeen = false;
    return text;
  }
  hidden(global, "TextEncoder", TextEncoder);
  hidden(global, "TextDecoder", TextDecoder);

  // ---- atob / btoa
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  hidden(global, "btoa", function btoa(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    const s = toStr(data);
    const out = [];
    for (let i = 0; i < s.length; i += 3) {
      const a = StringPrototypeCharCodeAt(s, i), b = StringPrototypeCharCodeAt(s, i + 1), c = StringPrototypeCharCodeAt(s, i + 2);
      if (a > 255 || b > 255 || c > 255) throw new DOMException("Invalid character", "InvalidCharacterError");
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      ArrayPrototypePush(out, B64[n >> 18], B64[(n >> 12) & 63], i + 1 < s.length ? B64[(n >> 6) & 63] : "=", i + 2 < s.length ? B64[n & 63] : "=");
    }
    return ArrayPrototypeJoin(out, "");
  });
  hidden(global, "atob", function atob(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    const s = toStr(data);
    // The forgiving-base64 checks, in Node's order and with its messages.
    const invalid = () => new DOMException("Invalid character", "InvalidCharacterError");
    const digits = [];
    let count = 0, equals = 0;
    for (let i = 0; i < s.length; i++) {
      const c = StringPrototypeCharCodeAt(s, i);
      if (c === 9 || c === 10 || c === 12 || c === 13 || c === 32) continue;
      count++;
      if (c === 61) {
        if (++equals > 2) throw invalid();
        continue;
      }
      const d = StringPrototypeIndexOf(B64, s[i]);
      if (d < 0 || equals) throw invalid();
      ArrayPrototypePush(digits, d);
    }
    let rest = count % 4;
    if (!rest) rest = (count - equals) % 4;
    else if (equals) throw invalid();
    if (rest === 1) throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    const out = [];
    for (let i = 0; i < digits.length; i += 4) {
      const n = (digits[i] << 18) | (digits[i + 1] << 12) | ((digits[i + 2] || 0) << 6) | (digits[i + 3] || 0);
      ArrayPrototypePush(out, StringFromCharCode(n >> 16));
      if (i + 2 < digits.length) ArrayPrototypePush(out, StringFromCharCode((n >> 8) & 255));
      if (i + 3 < digits.length) ArrayPrototypePush(out, StringFromCharCode(n & 255));
    }
    return ArrayPrototypeJoin(out, "");
  });

  // ---- structuredClone
  function cloneError(v) {
    let shown;
    if (typeof v === "function") shown = FunctionPrototypeToString(v);
    else if (typeof v === "symbol") shown = SymbolPrototypeToString(v);
    else shown = "#<" + toStr(nameOf(constructorOf(ObjectGetPrototypeOf(v))) || "Object") + ">";
    return new DOMException(shown + " could not be cloned.", "DataCloneError");
  }
  function clone(v, memo) {
    if (typeof v === "function" || typeof v === "symbol") throw cloneError(v);
    if (v === null || typeof v !== "object") return v;
    const known = MapPrototypeGet(memo, v);
    if (known !== undefined) return known;
    let out;
    if (ArrayIsArray(v)) {
      out = [];
      MapPrototypeSet(memo, v, out);
      // Holes stay holes.
      out.length = v.length;
      for (let i = 0; i < v.length; i++) if (ObjectPrototypeHasOwnProperty(v, i)) setOwn(out, i, clone(v[i], memo));
      return out;
    }
    if (isA(v, DatePrototype)) out = new Date(DatePrototypeGetTime(v));
    else if (isA(v, RegExpPrototype)) out = new RegExp(RegExpPrototypeGetSource(v), StringPrototypeSlice(regExpText(v), RegExpPrototypeGetSource(v).length + 2));
    else if (isA(v, ArrayBufferPrototype)) out = ArrayBufferPrototypeSlice(v, 0);
    else if (ArrayBufferIsView(v)) {
      const C = constructorOf(ObjectGetPrototypeOf(v));
      const isTyped = TypedArrayPrototypeGetSymbolToStringTag(v) !== undefined;
      const buffer = clone(isTyped ? TypedArrayPrototypeGetBuffer(v) : DataViewPrototypeGetBuffer(v), memo);
      out = isTyped
        ? new C(buffer, TypedArrayPrototypeGetByteOffset(v), TypedArrayPrototypeGetLength(v))
        : new DataView(buffer, DataViewPrototypeGetByteOffset(v), DataViewPrototypeGetByteLength(v));
    } else if (isA(v, MapPrototype)) {
      out = new Map();
      MapPrototypeSet(memo, v, out);
      const pairs = [];
      MapPrototypeForEach(v, (x, k) => { ArrayPrototypePush(pairs, k, x); });
      for (let i = 0; i < pairs.length; i += 2) MapPrototypeSet(out, clone(pairs[i], memo), clone(pairs[i + 1], memo));
      return out;
    } else if (isA(v, SetPrototype)) {
      out = new Set();
      MapPrototypeSet(memo, v, out);
      const members = [];
      SetPrototypeForEach(v, (x) => { ArrayPrototypePush(members, x); });
      for (let i = 0; i < members.length; i++) SetPrototypeAdd(out, clone(members[i], memo));
      return out;
    } else if (isA(v, ErrorPrototype)) {
      out = new Error(toStr(v.message));
      setOwn(out, "name", toStr(v.name));
      const stack = stackOf(v);
      if (typeof stack === "string") setOwn(out, "stack", stack);
    } else {
      const proto = ObjectGetPrototypeOf(v);
      const C = proto === null ? undefined : constructorOf(proto);
      if (isA(v, PromisePrototype) || (C !== undefined && MapPrototypeHas(builtinNames, C) && C !== Object)) throw cloneError(v);
      out = {};
      MapPrototypeSet(memo, v, out);
      const keys = ObjectKeys(v);
      for (let i = 0; i < keys.length; i++) setOwn(out, keys[i], clone(v[keys[i]], memo));
      return out;
    }
    MapPrototypeSet(memo, v, out);
    return out;
  }
  const ArrayBufferPrototypeTransfer = uncurryThis(ArrayBuffer.prototype.transfer);
  const ArrayBufferPrototypeGetDetached = getterOf(ArrayBuffer.prototype, "detached");
  // The ArrayBuffers of `options.transfer`, checked as Node 24 checks them.
  function transferList(options) {
    const list = options === undefined || options === null ? undefined : options.transfer;
    if (list === undefined) return [];
    if (list === null || typeof list !== "object" || typeof list[SymbolIterator] !== "function") {
      throw new TypeError("Failed to execute 'structuredClone': transfer in Options cannot be converted to sequence.");
    }
    const out = [];
    const it = list[SymbolIterator]();
    for (let r = it.next(); !r.done; r = it.next()) {
      const b = r.value;
      if (!isA(b, ArrayBufferPrototype)) throw new DOMException("Found invalid value in transferList.", "DataCloneError");
      if (ArrayBufferPrototypeGetDetached(b)) throw new DOMException("Cannot transfer object of unsupported type.", "DataCloneError");
      if (ArrayPrototypeIncludes(out, b)) throw new DOMException("Transfer list contains duplicate ArrayBuffer", "DataCloneError");
      ArrayPrototypePush(out, b);
    }
    return out;
  }
  hidden(global, "structuredClone", function structuredClone(value, options = undefined) {
    if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
    // A transferred buffer's bytes go to the clone (views in the value
    // follow them) and the original is detached afterwards.
    const moved = transferList(options);
    const memo = new Map();
    for (let i = 0; i < moved.length; i++) MapPrototypeSet(memo, moved[i], ArrayBufferPrototypeSlice(moved[i], 0));
    const out = clone(value, memo);
    for (let i = 0; i < moved.length; i++) ArrayBufferPrototypeTransfer(moved[i]);
    return out;
  });

  // ---- Event / EventTarget
  const eventState = new WeakMap();
  class Event {
    constructor(type, init = undefined) {
      if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
      WeakMapPrototypeSet(eventState, this, {
        __proto__: null, type: toStr(type), cancelable: !!(init && init.cancelable), bubbles: !!(init && init.bubbles),
        defaultPrevented: false, stop: false, target: null, currentTarget: null, timeStamp: performance.now(),
      });
    }
    get type() { return WeakMapPrototypeGet(eventState, this).type; }
    get target() { return WeakMapPrototypeGet(eventState, this).target; }
    get currentTarget() { return WeakMapPrototypeGet(eventState, this).currentTarget; }
    get cancelable() { return WeakMapPrototypeGet(eventState, this).cancelable; }
    get bubbles() { return WeakMapPrototypeGet(eventState, this).bubbles; }
    get defaultPrevented() { return WeakMapPrototypeGet(eventState, this).defaultPrevented; }
    get timeStamp() { return WeakMapPrototypeGet(eventState, this).timeStamp; }
    preventDefault() {
      const st = WeakMapPrototypeGet(eventState, this);
      if (st.cancelable) st.defaultPrevented = true;
    }
    stopPropagation() {}
    stopImmediatePropagation() { WeakMapPrototypeGet(eventState, this).stop = true; }
  }
  const listenersOf = new WeakMap(); // target -> Map(type -> [{ fn, once }])
  class EventTarget {
    addEventListener(type, fn, options = undefined) {
      if (fn === null || fn === undefined) return;
      let byType = WeakMapPrototypeGet(listenersOf, this);
      if (byType === undefined) WeakMapPrototypeSet(listenersOf, this, (byType = new Map()));
      const key = toStr(type);
      let list = MapPrototypeGet(byType, key);
      if (list === undefined) MapPrototypeSet(byType, key, (list = []));
      for (let i = 0; i < list.length; i++) if (list[i].fn === fn) return;
      const once = typeof options === "object" && options !== null && !!options.once;
      const entry = { __proto__: null, fn, once, removed: false };
      ArrayPrototypePush(list, entry);
      const signal = typeof options === "object" && options !== null ? options.signal : undefined;
      if (signal !== undefined) {
        const target = this;
        if (signal.aborted) return void this.removeEventListener(type, fn);
        signal.addEventListener("abort", () => target.removeEventListener(type, fn), { once: true });
      }
    }
    removeEventListener(type, fn) {
      const byType = WeakMapPrototypeGet(listenersOf, this);
      const list = byType && MapPrototypeGet(byType, toStr(type));
      if (!list) return;
      for (let i = 0; i < list.length; i++) {
        if (list[i].fn === fn) {
          list[i].removed = true;
          ArrayPrototypeSplice(list, i, 1);
          return;
        }
      }
    }
    dispatchEvent(event) {
      const st = WeakMapPrototypeGet(eventState, event);
      if (st === undefined) throw new TypeError('The "event" argument must be an instance of Event. Received ' + received(event));
      st.target = this;
      st.currentTarget = this;
      const byType = WeakMapPrototypeGet(listenersOf, this);
      const list = byType && MapPrototypeGet(byType, st.type);
      const now = list ? copyOf(list) : [];
      for (let i = 0; i < now.length && !st.stop; i++) {
        const entry = now[i];
        if (entry.removed) continue;
        if (entry.once) this.removeEventListener(st.type, entry.fn);
        try {
          if (typeof entry.fn === "function") ReflectApply(entry.fn, this, [event]);
          else if (entry.fn && typeof entry.fn.handleEvent === "function") entry.fn.handleEvent(event);
        } catch (e) {
          // As in Node: a listener's exception is uncaught, and the others still run.
          PromisePrototypeThen(resolved, () => { throw e; });
        }
      }
      st.currentTarget = null;
      return !st.defaultPrevented;
    }
  }
  hidden(global, "Event", Event);
  hidden(global, "EventTarget", EventTarget);

  // ---- AbortController / AbortSignal
  const signalState = new WeakMap();
  const abortSignal = (signal, reason) => {
    const st = WeakMapPrototypeGet(signalState, signal);
    if (st.aborted) return;
    st.aborted = true;
    st.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    signal.dispatchEvent(new Event("abort"));
  };
  let makingSignal = false;
  const newSignal = () => {
    makingSignal = true;
    try {
      return new AbortSignal();
    } finally {
      makingSignal = false;
    }
  };
  class AbortSignal extends EventTarget {
    constructor() {
      if (!makingSignal) throw new TypeError("Illegal constructor");
      super();
      WeakMapPrototypeSet(signalState, this, { __proto__: null, aborted: false, reason: undefined, onabort: null, listening: false });
    }
    get aborted() { return WeakMapPrototypeGet(signalState, this).aborted; }
    get reason() { return WeakMapPrototypeGet(signalState, this).reason; }
    get onabort() { return WeakMapPrototypeGet(signalState, this).onabort; }
    // An event handler attribute: a listener of its own, in the place of the
    // first assignment, that calls whatever handler is set then.
    set onabort(fn) {
      const st = WeakMapPrototypeGet(signalState, this);
      st.onabort = fn;
      if (st.listening) return;
      st.listening = true;
      this.addEventListener("abort", (event) => {
        if (typeof st.onabort === "function") ReflectApply(st.onabort, this, [event]);
      });
    }
    throwIfAborted() {
      const st = WeakMapPrototypeGet(signalState, this);
      if (st.aborted) throw st.reason;
    }
    static abort(reason = undefined) {
      const signal = newSignal();
      abortSignal(signal, reason);
      return signal;
    }
    static timeout(ms) {
      const delay = Number(ms);
      if (!(delay >= 0 && delay <= 4294967295)) {
        const e = new RangeError('The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ' + toStr(ms));
        setOwn(e, "code", "ERR_OUT_OF_RANGE");
        throw e;
      }
      const signal = newSignal();
      // Weak, as Node's is unref'd: it does not keep a settled run going.
      schedule(() => abortSignal(signal, new DOMException("The operation was aborted due to timeout", "TimeoutError")), delay, [], false, true);
      return signal;
    }
    static any(signals) {
      const list = copyOf(signals);
      const signal = newSignal();
      for (let i = 0; i < list.length; i++) {
        if (list[i].aborted) {
          abortSignal(signal, list[i].reason);
          return signal;
        }
      }
      for (let i = 0; i < list.length; i++) {
        const from = list[i];
        from.addEventListener("abort", () => abortSignal(signal, from.reason), { once: true });
      }
      return signal;
    }
  }
  const controllerSignal = new WeakMap();
  class AbortController {
    constructor() { WeakMapPrototypeSet(controllerSignal, this, newSignal()); }
    get signal() { return WeakMapPrototypeGet(controllerSignal, this); }
    abort(reason = undefined) { abortSignal(WeakMapPrototypeGet(controllerSignal, this), reason); }
  }
  hidden(global, "AbortSignal", AbortSignal);
  hidden(global, "AbortController", AbortController);
