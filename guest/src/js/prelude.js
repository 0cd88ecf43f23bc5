// The guest's console, tool bindings, timers and value formatting. Evaluated
// once per instance; the returned helpers stay private to the guest's Rust
// side. `write(stream, text)`, `call(name, argsJson)`, `fsop(requestJson,
// data, asText)` and `random(n)` reach the host; `shellop(script)` runs the
// shell in the same sandbox and returns [stdout, stderr, status];
// `callData(name, args)` starts a call whose arguments are plain data (their
// JSON text made natively) and returns undefined for anything else;
// `armed()` tells the native side a timer was set (it asks `nextTimer` only
// then), `armed(1)` that `process.nextTick` queued a callback; `toolFunction(name, last, callTool)` makes a tool's binding, a
// native function named `last` that starts calls with plain-data arguments
// itself and hands any other call to `callTool`; `urlop(op, …)` is the `url`
// crate's WHATWG URL parser, setters and form encoding (guest/src/js/url.rs);
// `exitop(status, now)` sets the run's exit code, and with `now` ends the run
// (an error no script code can catch).
(function install(write, call, fsop, random, shellop, callData, armed, toolFunction, urlop, exitop) {
  "use strict";

  // ---- primordials -------------------------------------------------------
  // The realm outlives a run (a sandbox is a REPL session), so a script may
  // replace any built-in: `Array.prototype.push`, `JSON.stringify`, the global
  // `Map`. This block runs before any script can, and keeps the originals;
  // below it, built-ins are reached only through these captures, called as
  // plain functions (`ArrayPrototypePush(list, x)`, never `list.push(x)`).
  // The rest of the file also avoids what reaches replaceable built-ins
  // implicitly: template literals with substitutions (QuickJS compiles them
  // to String.prototype.concat calls; strings are joined with `+`), iterating
  // arrays, Maps and Sets (`for...of`, spread, array destructuring), regular
  // expressions, `instanceof` (Symbol.hasInstance), assigning properties that
  // a setter up the prototype chain could catch, and descriptors or requests
  // that could inherit from Object.prototype.
  const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
  const FunctionPrototypeBind = uncurryThis(Function.prototype.bind);
  const global = globalThis;
  const {
    ArrayBuffer, DataView, Date, Error, JSON, Map, Math, Number, Object, Promise, RangeError, Reflect,
    RegExp, Set, String, Symbol, TypeError, Uint8Array, Uint32Array, WeakMap, WeakSet,
  } = global;
  const getterOf = (proto, name) => uncurryThis(Object.getOwnPropertyDescriptor(proto, name).get);

  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectIs = Object.is;
  const ObjectKeys = Object.keys;
  const ObjectPrototypeHasOwnProperty = uncurryThis(Object.prototype.hasOwnProperty);
  const ObjectPrototypeIsPrototypeOf = uncurryThis(Object.prototype.isPrototypeOf);
  const ArrayIsArray = Array.isArray;
  const ArrayPrototypeIncludes = uncurryThis(Array.prototype.includes);
  const ArrayPrototypeJoin = uncurryThis(Array.prototype.join);
  const ArrayPrototypePop = uncurryThis(Array.prototype.pop);
  const ArrayPrototypePush = uncurryThis(Array.prototype.push);
  const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice);
  const ArrayPrototypeSort = uncurryThis(Array.prototype.sort);
  const SymbolIterator = Symbol.iterator;
  const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
  const StringPrototypeIncludes = uncurryThis(String.prototype.includes);
  const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
  const StringPrototypeLastIndexOf = uncurryThis(String.prototype.lastIndexOf);
  const StringPrototypePadStart = uncurryThis(String.prototype.padStart);
  const StringPrototypePadEnd = uncurryThis(String.prototype.padEnd);
  const StringPrototypeRepeat = uncurryThis(String.prototype.repeat);
  const StringPrototypeSlice = uncurryThis(String.prototype.slice);
  const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
  const StringPrototypeToWellFormed = uncurryThis(String.prototype.toWellFormed);
  const NumberIsNaN = Number.isNaN;
  const NumberIsInteger = Number.isInteger;
  const { BigInt } = global;
  const NumberPrototypeToString = uncurryThis(Number.prototype.toString);
  const NumberPrototypeToFixed = uncurryThis(Number.prototype.toFixed);
  const StringFromCharCode = String.fromCharCode;
  const StringPrototypeCodePointAt = uncurryThis(String.prototype.codePointAt);
  const SymbolPrototypeToString = uncurryThis(Symbol.prototype.toString);
  const FunctionPrototypeToString = uncurryThis(Function.prototype.toString);
  const ReflectApply = Reflect.apply;
  const ReflectGet = Reflect.get;
  const JSONParse = JSON.parse;
  const JSONStringify = JSON.stringify;
  const MathImul = Math.imul;
  const MathMax = Math.max;
  const MathMin = Math.min;
  const MathFloor = Math.floor;
  const MathRound = Math.round;
  const MathSqrt = Math.sqrt;
  const MathTrunc = Math.trunc;
  const DateNow = Date.now;
  const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime);
  const DatePrototypeToISOString = uncurryThis(Date.prototype.toISOString);
  const RegExpPrototypeGetSource = getterOf(RegExp.prototype, "source");
  const PromiseReject = uncurryThis(Function.prototype.bind)(Promise.reject, Promise);
  const PromiseResolve = uncurryThis(Function.prototype.bind)(Promise.resolve, Promise);
  const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
  const MapPrototypeClear = uncurryThis(Map.prototype.clear);
  const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
  const MapPrototypeForEach = uncurryThis(Map.prototype.forEach);
  const MapPrototypeGet = uncurryThis(Map.prototype.get);
  const MapPrototypeGetSize = getterOf(Map.prototype, "size");
  const MapPrototypeHas = uncurryThis(Map.prototype.has);
  const MapPrototypeSet = uncurryThis(Map.prototype.set);
  const SetPrototypeForEach = uncurryThis(Set.prototype.forEach);
  const SetPrototypeGetSize = getterOf(Set.prototype, "size");
  const WeakSetPrototypeAdd = uncurryThis(WeakSet.prototype.add);
  const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
  const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
  const SetPrototypeAdd = uncurryThis(Set.prototype.add);
  const ArrayBufferPrototypeSlice = uncurryThis(ArrayBuffer.prototype.slice);
  const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
  const StringPrototypeTrim = uncurryThis(String.prototype.trim);
  const WeakSetPrototypeHas = uncurryThis(WeakSet.prototype.has);
  const ArrayBufferIsView = ArrayBuffer.isView;
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayPrototypeGetBuffer = getterOf(TypedArrayPrototype, "buffer");
  const TypedArrayPrototypeGetByteLength = getterOf(TypedArrayPrototype, "byteLength");
  const TypedArrayPrototypeGetByteOffset = getterOf(TypedArrayPrototype, "byteOffset");
  const TypedArrayPrototypeGetLength = getterOf(TypedArrayPrototype, "length");
  const TypedArrayPrototypeGetSymbolToStringTag = getterOf(TypedArrayPrototype, Symbol.toStringTag);
  const TypedArrayPrototypeSet = uncurryThis(TypedArrayPrototype.set);
  const DataViewPrototypeGetBuffer = getterOf(DataView.prototype, "buffer");
  const DataViewPrototypeGetByteLength = getterOf(DataView.prototype, "byteLength");
  const DataViewPrototypeGetByteOffset = getterOf(DataView.prototype, "byteOffset");
  // Read by `stackOf` (Error.prototype.stack is an accessor in QuickJS-ng).
  const stackDescriptor = ObjectGetOwnPropertyDescriptor(Error.prototype, "stack");
  const ErrorPrototypeGetStack =
    stackDescriptor && typeof stackDescriptor.get === "function" ? uncurryThis(stackDescriptor.get) : undefined;
  // What RegExp.prototype.flags reads, in its order.
  const regExpFlags = [];
  for (const [letter, name] of [["d", "hasIndices"], ["g", "global"], ["i", "ignoreCase"], ["m", "multiline"],
    ["s", "dotAll"], ["u", "unicode"], ["v", "unicodeSets"], ["y", "sticky"]]) {
    if (ObjectGetOwnPropertyDescriptor(RegExp.prototype, name)) ArrayPrototypePush(regExpFlags, letter, getterOf(RegExp.prototype, name));
  }
  // The constructor and name each built-in prototype had at start-up, for
  // naming objects (`Map(1) {…}`, `Uint8Array(2) […]`, `Point {…}`).
  const builtinConstructors = new Map(); // prototype -> constructor
  const builtinNames = new Map(); // constructor -> name
  for (const key of ObjectGetOwnPropertyNames(global)) {
    const d = ObjectGetOwnPropertyDescriptor(global, key);
    const C = d && d.value;
    if (typeof C !== "function" || !ObjectPrototypeHasOwnProperty(C, "prototype")) continue;
    const proto = C.prototype;
    const back = proto !== null && typeof proto === "object" ? ObjectGetOwnPropertyDescriptor(proto, "constructor") : undefined;
    if (!back || back.value !== C) continue;
    MapPrototypeSet(builtinConstructors, proto, C);
    MapPrototypeSet(builtinNames, C, C.name);
  }
  const ErrorPrototype = Error.prototype;
  const ObjectPrototype = Object.prototype;
  const DatePrototype = Date.prototype;
  const RegExpPrototype = RegExp.prototype;
  const PromisePrototype = Promise.prototype;
  const MapPrototype = Map.prototype;
  const SetPrototype = Set.prototype;
  const ArrayBufferPrototype = ArrayBuffer.prototype;
  const Uint8ArrayPrototype = Uint8Array.prototype;

  // `value instanceof C`, without consulting C[Symbol.hasInstance].
  const isA = (value, proto) => ObjectPrototypeIsPrototypeOf(proto, value);
  // Own data properties, defined rather than assigned: an assignment could
  // reach a setter a script put up the prototype chain. Descriptors have no
  // prototype, so an inherited `get` or `value` cannot slip into them.
  const setOwn = (target, name, value) =>
    ObjectDefineProperty(target, name, { __proto__: null, value, writable: true, configurable: true, enumerable: true });
  const hidden = (target, name, value) =>
    ObjectDefineProperty(target, name, { __proto__: null, value, writable: true, configurable: true, enumerable: false });
  // ToString, as a template literal would apply it.
  const toStr = (v) => ((typeof v === "object" && v !== null) || typeof v === "function" ? String(v) : "" + v);
  const copyOf = (list) => {
    const out = [];
    for (let i = 0; i < list.length; i++) ArrayPrototypePush(out, list[i]);
    return out;
  };
  // `s.split(sep)` for a non-empty separator string.
  const splitOn = (s, sep) => {
    const parts = [];
    let from = 0;
    for (let at = StringPrototypeIndexOf(s, sep); at >= 0; at = StringPrototypeIndexOf(s, sep, from)) {
      ArrayPrototypePush(parts, StringPrototypeSlice(s, from, at));
      from = at + sep.length;
    }
    ArrayPrototypePush(parts, StringPrototypeSlice(s, from));
    return parts;
  };

  // ---- console -----------------------------------------------------------

  const STDOUT = 1, STDERR = 2;
  // Bytes each stream may still take in this run, -1 once the host has cut it
  // (the host enforces the cap; this only keeps the guest from formatting
  // text that would be dropped).
  let budget = [0, Infinity, Infinity];

  // Character classes of the regular expressions this formatting follows
  // (written out: a script may replace RegExp.prototype.exec).
  const isLetter = (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  const isDigit = (c) => c >= 48 && c <= 57;
  // \w
  const isWordChar = (c) => isLetter(c) || isDigit(c) || c === 95;
  // \s
  const isSpace = (c) =>
    (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
  // /^[A-Za-z_$][A-Za-z0-9_$]*$/
  const isIdent = (k) => {
    if (k.length === 0) return false;
    for (let i = 0; i < k.length; i++) {
      const c = StringPrototypeCharCodeAt(k, i);
      if (!(isLetter(c) || c === 95 || c === 36 || (i > 0 && isDigit(c)))) return false;
    }
    return true;
  };
  // /^\s+at /
  const isFrame = (line) => {
    let i = 0;
    while (i < line.length && isSpace(StringPrototypeCharCodeAt(line, i))) i++;
    return i > 0 && StringPrototypeStartsWith(line, "at ", i);
  };

  const escapeOf = (code, quoteToo) => {
    switch (code) {
      case 92: return "\\\\";
      case 10: return "\\n";
      case 13: return "\\r";
      case 9: return "\\t";
      case 8: return "\\b";
      case 12: return "\\f";
      case 11: return "\\v";
      case 0: return "\\0";
      case 39: return quoteToo ? "\\'" : undefined;
    }
    return undefined;
  };
  const ESCAPED = ["\\", "\n", "\r", "\t", "\b", "\f", "\v", "\0"];
  const quote = (s) => {
    const has = (c) => StringPrototypeIncludes(s, c);
    const q = !has("'") ? "'" : !has('"') ? '"' : !has("`") ? "`" : "'";
    const quoteToo = q === "'" && has("'");
    let plain = !quoteToo;
    for (let i = 0; plain && i < ESCAPED.length; i++) plain = !has(ESCAPED[i]);
    if (plain) return q + s + q;
    const parts = [q];
    let from = 0;
    for (let i = 0; i < s.length; i++) {
      const esc = escapeOf(StringPrototypeCharCodeAt(s, i), quoteToo);
      if (esc === undefined) continue;
      ArrayPrototypePush(parts, StringPrototypeSlice(s, from, i), esc);
      from = i + 1;
    }
    ArrayPrototypePush(parts, StringPrototypeSlice(s, from), q);
    return ArrayPrototypeJoin(parts, "");
  };

  // `e.stack`, except that Error.prototype answers with its original accessor.
  function stackOf(e) {
    for (let o = e; o !== null; o = ObjectGetPrototypeOf(o)) {
      if (o === ErrorPrototype && ErrorPrototypeGetStack) return ErrorPrototypeGetStack(e);
      if (ObjectPrototypeHasOwnProperty(o, "stack")) return ReflectGet(o, "stack", e);
    }
    return undefined;
  }

  function errorText(e) {
    let name, message, stack;
    try { name = String(e.name); } catch { name = "Error"; }
    try { message = String(e.message); } catch { message = ""; }
    try { const s = stackOf(e); stack = typeof s === "string" ? s : ""; } catch { stack = ""; }
    const head = message ? name + ": " + message : name;
    const lines = splitOn(stack, "\n");
    const kept = [];
    // Frames of the prelude (and the native `apply` that calls a timer's
    // callback) are the sandbox's, not the script's.
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (isFrame(line) && !StringPrototypeIncludes(line, "(eval_script:") && line !== "    at apply (native)") ArrayPrototypePush(kept, line);
    }
    const frames = ArrayPrototypeJoin(kept, "\n");
    return frames ? head + "\n" + frames : head;
  }

  function fnText(f) {
    let src = "";
    try { src = FunctionPrototypeToString(f); } catch {}
    const name = f.name ? String(f.name) : "";
    // /^class\b/
    if (StringPrototypeStartsWith(src, "class") && !(src.length > 5 && isWordChar(StringPrototypeCharCodeAt(src, 5)))) {
      return name ? "[class " + name + "]" : "[class (anonymous)]";
    }
    return name ? "[Function: " + name + "]" : "[Function (anonymous)]";
  }

  // `String(re)`, from RegExp.prototype's own accessors.
  function regExpText(re) {
    const source = RegExpPrototypeGetSource(re);
    let flags = "";
    for (let i = 0; i < regExpFlags.length; i += 2) if (regExpFlags[i + 1](re)) flags += regExpFlags[i];
    return "/" + source + "/" + flags;
  }

  // `proto.constructor`, looked up the way a property read walks the chain,
  // except that a built-in prototype answers with its original constructor.
  function constructorOf(proto) {
    for (let o = proto; o !== null; o = ObjectGetPrototypeOf(o)) {
      const known = MapPrototypeGet(builtinConstructors, o);
      if (known !== undefined) return known;
      if (ObjectPrototypeHasOwnProperty(o, "constructor")) return ReflectGet(o, "constructor", proto);
    }
    return undefined;
  }
  // `C.name`; a built-in constructor answers with its original name.
  const nameOf = (C) => (MapPrototypeHas(builtinNames, C) ? MapPrototypeGet(builtinNames, C) : C.name);

  const items = (n, what) => n + " " + what + (n > 1 ? "s" : "");

  // What inspect shows for instances of a prototype (URL, URLSearchParams):
  // prototype -> function(value) giving the text, or an object shown instead.
  const inspectHooks = new Map();
  // How deep inspect goes (console.dir's `depth` changes it for one call).
  let inspectDepth = 2;
  // Node's util.inspect for plain data: one line while it fits in 80
  // columns, two-space indentation otherwise; depth 2; circular references
  // marked.
  function inspect(value, depth = 0, seen = [], indent = 0) {
    switch (typeof value) {
      case "string": return depth === 0 ? value : quote(value);
      case "number": return ObjectIs(value, -0) ? "-0" : String(value);
      case "bigint": return value + "n";
      case "boolean": case "undefined": return String(value);
      case "symbol": return SymbolPrototypeToString(value);
      case "function": return fnText(value);
    }
    if (value === null) return "null";
    if (ArrayPrototypeIncludes(seen, value)) return "[Circular *1]";
    // An object's own [util.inspect.custom](depth, options, inspect).
    const custom = value[customInspect];
    if (typeof custom === "function") {
      const left = inspectDepth - depth;
      const shown = ReflectApply(custom, value, [left, { __proto__: null, depth: left }, inspectWith]);
      if (shown !== value) return typeof shown === "string" ? shown : inspect(shown, depth, seen, indent);
    }
    const hook = MapPrototypeGet(inspectHooks, ObjectGetPrototypeOf(value));
    if (hook !== undefined) {
      const shown = hook(value);
      return typeof shown === "string" ? shown : inspect(shown, depth, seen, indent);
    }
    if (isA(value, ErrorPrototype)) return errorText(value);
    if (isA(value, DatePrototype)) {
      return NumberIsNaN(DatePrototypeGetTime(value)) ? "Invalid Date" : DatePrototypeToISOString(value);
    }
    if (isA(value, RegExpPrototype)) return regExpText(value);
    if (isA(value, PromisePrototype)) return "Promise { <pending> }";
    // Typed arrays (the views that are not DataViews).
    if (ArrayBufferIsView(value) && TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined) {
      const name = toStr(nameOf(constructorOf(ObjectGetPrototypeOf(value))));
      const length = TypedArrayPrototypeGetLength(value);
      const shown = [];
      for (let i = 0; i < MathMin(length, 100); i++) ArrayPrototypePush(shown, inspect(value[i], depth + 1));
      if (length > 100) ArrayPrototypePush(shown, "... " + items(length - 100, "more item"));
      if (length > 0) deepest = depth;
      return layout(shown, name + "(" + length + ") ", "[", "]", indent, depth, value, length > 100);
    }
    const inner = copyOf(seen);
    ArrayPrototypePush(inner, value);
    const sub = (v) => inspect(v, depth + 1, inner, indent + 2);
    let open, close, prefix = "", list = false;
    const entries = [];
    if (ArrayIsArray(value)) {
      // (Empty ones show at any depth, as in Node.)
      if (depth > inspectDepth && value.length > 0) return "[Array]";
      if (value.length > 0) deepest = depth;
      open = "["; close = "]"; list = true;
      const n = MathMin(value.length, 100);
      let holes = 0;
      for (let i = 0; i < n; i++) {
        if (!ObjectPrototypeHasOwnProperty(value, i)) { holes++; continue; }
        if (holes) { ArrayPrototypePush(entries, "<" + items(holes, "empty item") + ">"); holes = 0; }
        ArrayPrototypePush(entries, sub(value[i]));
      }
      if (holes) ArrayPrototypePush(entries, "<" + items(holes, "empty item") + ">");
      if (value.length > 100) ArrayPrototypePush(entries, "... " + items(value.length - 100, "more item"));
    } else if (isA(value, MapPrototype)) {
      if (depth > inspectDepth && MapPrototypeGetSize(value) > 0) return "[Map]";
      if (MapPrototypeGetSize(value) > 0) deepest = depth;
      prefix = "Map(" + MapPrototypeGetSize(value) + ") "; open = "{"; close = "}";
      const pairs = [];
      MapPrototypeForEach(value, (v, k) => { ArrayPrototypePush(pairs, k, v); });
      for (let i = 0; i < pairs.length; i += 2) ArrayPrototypePush(entries, sub(pairs[i]) + " => " + sub(pairs[i + 1]));
    } else if (isA(value, SetPrototype)) {
      if (depth > inspectDepth && SetPrototypeGetSize(value) > 0) return "[Set]";
      if (SetPrototypeGetSize(value) > 0) deepest = depth;
      prefix = "Set(" + SetPrototypeGetSize(value) + ") "; open = "{"; close = "}";
      const members = [];
      SetPrototypeForEach(value, (v) => { ArrayPrototypePush(members, v); });
      for (let i = 0; i < members.length; i++) ArrayPrototypePush(entries, sub(members[i]));
    } else {
      const proto = ObjectGetPrototypeOf(value);
      let ctor = "";
      try {
        const C = proto === null ? undefined : constructorOf(proto);
        ctor = proto === null ? "[Object: null prototype]" : C && C !== Object ? String(nameOf(C)) : "";
      } catch {}
      const keys = ObjectKeys(value);
      if (depth > inspectDepth && keys.length > 0) return ctor && !StringPrototypeStartsWith(ctor, "[") ? "[" + ctor + "]" : "[Object]";
      if (keys.length > 0) deepest = depth;
      prefix = ctor ? ctor + " " : ""; open = "{"; close = "}";
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const name = isIdent(k) ? k : quote(k);
        // An accessor is named, not called, as Node shows it. The
        // descriptor's fields are read as its own (a script may have put
        // `get` on Object.prototype).
        const d = ObjectGetOwnPropertyDescriptor(value, k);
        if (d !== undefined && !ObjectPrototypeHasOwnProperty(d, "value")) {
          const get = ObjectPrototypeHasOwnProperty(d, "get") ? d.get : undefined;
          const set = ObjectPrototypeHasOwnProperty(d, "set") ? d.set : undefined;
          const kind = get === undefined ? "[Setter]" : set === undefined ? "[Getter]" : "[Getter/Setter]";
          ArrayPrototypePush(entries, name + ": " + kind);
          continue;
        }
        let v;
        try { v = d === undefined ? value[k] : d.value; } catch (e) { v = e; }
        ArrayPrototypePush(entries, name + ": " + sub(v));
      }
    }
    return layout(entries, prefix, open, close, indent, depth, list ? value : undefined, list && value.length > 100);
  }

  // The depth of the non-empty object inspect entered last: after an
  // object's entries, how far below it the last nesting went.
  let deepest = 0;
  // Node's layout of an object's entries (util.inspect with compact 3 and
  // breakLength 80): on one line when the object holds no more than two
  // further levels below it (along its last entries) and the line fits;
  // else one entry per line, except that an array of more than six entries
  // is set out in aligned columns when its entries are short enough.
  // `array` is the array (or typed array) itself, `more` whether the last
  // entry is "... n more items".
  function layout(entries, prefix, open, close, indent, depth, array, more) {
    if (entries.length === 0) return prefix + open + close;
    const head = prefix + open;
    let rows = entries;
    if (array !== undefined && entries.length > 6) rows = columnsOf(entries, indent, array, more);
    if (rows === entries && deepest - depth < 3) {
      // Node's measure: the entries, a separator each, and the opening.
      let total = entries.length + entries.length + indent + head.length + 10;
      let fits = total + entries.length <= 80;
      for (let i = 0; fits && i < entries.length; i++) {
        total += entries[i].length;
        fits = total <= 80;
      }
      if (fits) {
        const line = ArrayPrototypeJoin(entries, ", ");
        if (!StringPrototypeIncludes(line, "\n")) return head + " " + line + " " + close;
      }
    }
    const pad = "\n" + StringPrototypeRepeat(" ", indent);
    return head + pad + "  " + ArrayPrototypeJoin(rows, "," + pad + "  ") + pad + close;
  }

  // An array's entries in rows of aligned columns, or `entries` itself when
  // they are too long or too uneven for that: about as many columns as
  // make a square of entries 2.5 times as high as wide (more for short
  // ones), at most 12 and within 80 columns; numbers are aligned right,
  // anything else left.
  function columnsOf(entries, indent, array, more) {
    const n = more ? entries.length - 1 : entries.length;
    const lengths = [];
    let total = 0, longest = 0;
    for (let i = 0; i < n; i++) {
      const len = entries[i].length;
      ArrayPrototypePush(lengths, len);
      total += len + 2;
      if (len > longest) longest = len;
    }
    const widest = longest + 2;
    if (!(widest * 3 + indent < 80 && (total / widest > 5 || longest <= 6))) return entries;
    const bias = MathSqrt(widest - total / entries.length);
    const cell = MathMax(widest - 3 - bias, 1);
    const count = MathMin(MathRound(MathSqrt(2.5 * cell * n) / cell), MathFloor((80 - indent) / widest), 12);
    if (count <= 1) return entries;
    const widths = [];
    for (let c = 0; c < count; c++) {
      let w = 0;
      for (let j = c; j < entries.length; j += count) if (lengths[j] > w) w = lengths[j];
      ArrayPrototypePush(widths, w + 2);
    }
    let numbers = true;
    for (let i = 0; numbers && i < entries.length; i++) numbers = typeof array[i] === "number" || typeof array[i] === "bigint";
    const rows = [];
    for (let i = 0; i < n; i += count) {
      const last = MathMin(i + count, n) - 1;
      let row = "";
      for (let j = i; j < last; j++) {
        const text = entries[j] + ", ";
        row += numbers ? StringPrototypePadStart(text, widths[j - i], " ") : StringPrototypePadEnd(text, widths[j - i], " ");
      }
      row += numbers ? StringPrototypePadStart(entries[last], widths[last - i] - 2, " ") : entries[last];
      ArrayPrototypePush(rows, row);
    }
    if (more) ArrayPrototypePush(rows, entries[n]);
    return rows;
  }

  const customInspect = Symbol.for("nodejs.util.inspect.custom");
  // util.inspect(value, options): strings quoted; `depth` as console.dir
  // takes it (null or Infinity: all the way). Other options are not read.
  function inspectWith(value, options) {
    if (typeof value === "string") return quote(value);
    const before = inspectDepth;
    const depth = options !== null && typeof options === "object" ? options.depth : undefined;
    if (depth === null || depth === Infinity) inspectDepth = Infinity;
    else if (typeof depth === "number") inspectDepth = depth;
    try {
      return inspect(value, 0);
    } finally {
      inspectDepth = before;
    }
  }

  // Whether `%s` prints the object with its own toString: one that a script
  // defined, up its prototype chain, rather than a built-in prototype's.
  function ownToString(a) {
    for (let o = a; o !== null; o = ObjectGetPrototypeOf(o)) {
      if (ObjectPrototypeHasOwnProperty(o, "toString")) return !MapPrototypeHas(builtinConstructors, o);
    }
    return false;
  }

  // One printf-style substitution (`%s`, `%d`, ...), as Node's console does.
  function substitute(c, a) {
    switch (c) {
      case "s":
        if (a === null || typeof a !== "object") return typeof a === "string" ? a : inspect(a, 1);
        return ownToString(a) ? String(a) : inspectWith(a, { __proto__: null, depth: 0 });
      case "d": case "i": { const n = typeof a === "bigint" ? a : Number(a); return typeof n === "bigint" ? n + "n" : String(c === "i" ? MathTrunc(n) : n); }
      case "f": return String(Number(a));
      case "j": try { return JSONStringify(a); } catch { return "[Circular]"; }
      case "c": return "";
      default: return inspect(a, 1);
    }
  }

  // printf-style substitutions of the first argument (what
  // /%([sdifjoOc%])/g would find, left to right), then the rest inspected.
  function format(args) {
    const out = [];
    let i = 1;
    const first = args[0];
    if (typeof first === "string" && args.length > 1 && StringPrototypeIncludes(first, "%")) {
      const head = [];
      let from = 0;
      for (let at = StringPrototypeIndexOf(first, "%"); at >= 0 && at + 1 < first.length; at = StringPrototypeIndexOf(first, "%", at)) {
        const c = first[at + 1];
        if (!StringPrototypeIncludes("sdifjoOc%", c)) { at += 1; continue; }
        const piece = c === "%" ? "%" : i >= args.length ? "%" + c : substitute(c, args[i++]);
        ArrayPrototypePush(head, StringPrototypeSlice(first, from, at), toStr(piece));
        from = at + 2;
        at = from;
      }
      ArrayPrototypePush(head, StringPrototypeSlice(first, from));
      ArrayPrototypePush(out, ArrayPrototypeJoin(head, ""));
    } else {
      ArrayPrototypePush(out, args.length ? inspect(first) : "");
    }
    for (; i < args.length; i++) ArrayPrototypePush(out, inspect(args[i]));
    return ArrayPrototypeJoin(out, " ");
  }

  // console.group's indentation, put before every line written.
  let groupIndent = "";
  const indented = (text) => {
    const lines = splitOn(StringPrototypeSlice(text, 0, -1), "\n");
    return groupIndent + ArrayPrototypeJoin(lines, "\n" + groupIndent) + "\n";
  };
  function emit(stream, args) {
    // -1: the host has cut the stream; nothing more is kept.
    if (budget[stream] < 0) return;
    if (groupIndent) {
      budget[stream] = write(stream, StringPrototypeToWellFormed(indented(format(args) + "\n")));
      return;
    }
    // Cut huge strings before formatting: the host would drop the excess.
    const cap = budget[stream] + 1;
    const only = args[0];
    if (args.length === 1 && typeof only === "string") {
      // The common case, one string, is printed as it is: what format()
      // would give, without its arrays.
      const text = only.length >= cap ? StringPrototypeSlice(only, 0, cap) : only + "\n";
      budget[stream] = write(stream, StringPrototypeToWellFormed(text));
      return;
    }
    const cut = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      ArrayPrototypePush(cut, typeof a === "string" && a.length > cap ? StringPrototypeSlice(a, 0, cap) : a);
    }
    let text = format(cut) + "\n";
    if (text.length > cap) text = StringPrototypeSlice(text, 0, cap);
    budget[stream] = write(stream, StringPrototypeToWellFormed(text));
  }

  const console = {
    log: (...a) => emit(STDOUT, a),
    info: (...a) => emit(STDOUT, a),
    debug: (...a) => emit(STDOUT, a),
    warn: (...a) => emit(STDERR, a),
    error: (...a) => emit(STDERR, a),
  };
  hidden(global, "console", console);

  // ---- tools -------------------------------------------------------------

  /** A tool call that was refused or failed; `code` is stable. */
  class ToolError extends Error {
    constructor(message, code, reason, tool, toolCode, status) {
      super(message);
      // Raised from a host result, not from a line of the script.
      setOwn(this, "stack", "");
      setOwn(this, "name", "ToolError");
      setOwn(this, "code", code);
      if (reason) setOwn(this, "reason", reason);
      if (tool) setOwn(this, "tool", tool);
      // What the tool's own error said of itself, when the host let it through.
      if (toolCode !== undefined) setOwn(this, "toolCode", toolCode);
      if (status !== undefined) setOwn(this, "status", status);
    }
  }

  const kindOf = (v) => (v === null ? "null" : ArrayIsArray(v) ? "an array" : typeof v);

  function callTool(name, args, extra) {
    if (typeof name !== "string") {
      return PromiseReject(new TypeError("invalid tool name: a tool name must be a string, got " + kindOf(name)));
    }
    if (extra) {
      return PromiseReject(
        new TypeError(name + " takes one object argument, like " + name + "({ key: value }), not positional arguments"),
      );
    }
    const value = args === undefined ? { __proto__: null } : args;
    // Plain data (the common case) is written natively; anything a script
    // could observe being read goes through JSON.stringify below.
    const direct = callData(name, value);
    if (direct !== undefined) return direct;
    let text;
    try {
      text = JSONStringify(value);
    } catch (e) {
      return PromiseReject(new TypeError(name + ": the arguments must be JSON data (" + toStr(e && e.message) + ")"));
    }
    if (typeof text !== "string") {
      return PromiseReject(new TypeError(name + " takes one object argument, like " + name + "({ key: value })"));
    }
    return started(name, text);
  }

  // The native side starts the call and keeps the promise's resolvers.
  function started(name, text) {
    return call(name, text);
  }

  // Sends JSON text exactly as given: the host parses and checks it.
  function callRaw(name, text) {
    if (typeof name !== "string") {
      return PromiseReject(new TypeError("invalid tool name: a tool name must be a string, got " + kindOf(name)));
    }
    if (typeof text !== "string") {
      return PromiseReject(new TypeError(name + ": tools.callRaw takes the arguments as JSON text"));
    }
    return started(name, text);
  }

  const namespaces = new WeakSet();
  const bound = new WeakSet();
  // Binds `a.b.c` as globalThis.a.b.c(args); a name that would replace
  // something the script environment already has stays reachable through
  // tools.call only.
  function bind(name) {
    const parts = splitOn(name, ".");
    const last = parts[parts.length - 1];
    let target = global;
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i];
      let next = ObjectPrototypeHasOwnProperty(target, part) ? target[part] : undefined;
      if (next === undefined) {
        next = {};
        WeakSetPrototypeAdd(namespaces, next);
        hidden(target, part, next);
      } else if (!WeakSetPrototypeHas(namespaces, next)) {
        return;
      }
      target = next;
    }
    if (ObjectPrototypeHasOwnProperty(target, last) && !WeakSetPrototypeHas(bound, target[last])) return;
    const fn = toolFunction(name, last, callTool);
    WeakSetPrototypeAdd(bound, fn);
    hidden(target, last, fn);
  }

  const tools = {
    /** Calls a tool by its name (`"stripe.charges.create"` or `"stripe/charges/create"`). */
    call: (...a) => callTool(a[0], a[1], a.length > 2),
    /** Calls a tool with arguments given as JSON text, passed to the host unchanged. */
    callRaw: (name, json) => callRaw(name, json),
    /** The registered tool names. */
    list: () => copyOf(registered),
    ToolError,
  };
  let registered = [];
  hidden(global, "tools", tools);

  // ---- fs ----------------------------------------------------------------
  // Node's fs for the sandbox's file system: synchronous functions
  // (`readFileSync`, ...), promise versions under the plain names and
  // `fs.promises`. Paths are relative to /workspace unless absolute.

  class FsError extends Error {
    constructor(message, code, syscall, path) {
      super(message);
      setOwn(this, "stack", "");
      setOwn(this, "name", "Error");
      setOwn(this, "code", code);
      setOwn(this, "syscall", syscall);
      setOwn(this, "path", path);
    }
  }

  function fsCall(syscall, fields, data, asText) {
    // Without a prototype: an inherited `toJSON` or `from` cannot change it.
    const request = { __proto__: null };
    const keys = ObjectKeys(fields);
    for (let i = 0; i < keys.length; i++) request[keys[i]] = fields[keys[i]];
    const path = request.op === "cwd" ? "." : request.path ?? request.from;
    if (typeof path !== "string" || (request.to !== undefined && typeof request.to !== "string")) {
      throw new TypeError('The "path" argument must be of type string. Received ' + kindOf(path));
    }
    const result = fsop(JSONStringify(request), data, asText === true);
    const reply = JSONParse(result[0]);
    if (reply.errno) {
      // "CODE: description (detail), 'path'" becomes Node's "…, syscall 'path'".
      const msg = reply.message;
      const at = StringPrototypeLastIndexOf(msg, ", '");
      const text = at < 0 ? msg : StringPrototypeSlice(msg, 0, at) + ", " + syscall + " " + StringPrototypeSlice(msg, at + 2);
      throw new FsError(text, reply.errno, syscall, path);
    }
    return [reply, result[1]];
  }
  const encodingOf = (options) =>
    typeof options === "string" ? options : options && typeof options === "object" ? options.encoding : undefined;
  const isText = (enc) => enc === "utf8" || enc === "utf-8";
  function toData(data) {
    if (typeof data === "string") return data;
    if (isA(data, Uint8ArrayPrototype)) return data;
    if (ArrayBufferIsView(data)) {
      return TypedArrayPrototypeGetSymbolToStringTag(data) !== undefined
        ? new Uint8Array(TypedArrayPrototypeGetBuffer(data), TypedArrayPrototypeGetByteOffset(data), TypedArrayPrototypeGetByteLength(data))
        : new Uint8Array(DataViewPrototypeGetBuffer(data), DataViewPrototypeGetByteOffset(data), DataViewPrototypeGetByteLength(data));
    }
    if (isA(data, ArrayBufferPrototype)) return new Uint8Array(data);
    throw new TypeError('The "data" argument must be a string or a Uint8Array. Received ' + kindOf(data));
  }
  function stats(st) {
    const isDir = st.kind === "dir";
    return {
      size: st.size,
      // S_IFDIR / S_IFREG plus the permission bits the tree keeps.
      mode: (isDir ? 0o040000 : 0o100000) + (st.mode === undefined ? (isDir ? 0o755 : 0o644) : st.mode),
      mtimeMs: st.mtime_ms,
      mtime: new Date(st.mtime_ms),
      isFile: () => !isDir,
      isDirectory: () => isDir,
      isSymbolicLink: () => false,
    };
  }
  const sync = {
    readFileSync(path, options) {
      const enc = encodingOf(options);
      if (enc !== undefined && enc !== null && !isText(enc)) throw new TypeError("unsupported encoding " + String(enc) + '; use "utf8" or none');
      return fsCall("open", { op: "read", path }, undefined, isText(enc))[1];
    },
    writeFileSync(path, data, options) {
      const flag = options && typeof options === "object" ? options.flag : undefined;
      const mode = flag === "a" ? "append" : flag === "wx" ? "create_new" : "truncate";
      fsCall("open", { op: "write", path, mode }, toData(data));
    },
    appendFileSync(path, data) {
      fsCall("open", { op: "write", path, mode: "append" }, toData(data));
    },
    mkdirSync(path, options) {
      fsCall("mkdir", { op: "mkdir", path, recursive: !!(options && options.recursive) });
    },
    readdirSync(path, options) {
      const entries = fsCall("scandir", { op: "readdir", path })[0].entries;
      const out = [];
      if (options && options.withFileTypes) {
        for (let i = 0; i < entries.length; i++) {
          const e = entries[i];
          ArrayPrototypePush(out, { name: e.name, isFile: () => e.kind === "file", isDirectory: () => e.kind === "dir" });
        }
        return out;
      }
      for (let i = 0; i < entries.length; i++) ArrayPrototypePush(out, entries[i].name);
      return out;
    },
    chmodSync(path, mode) {
      let bits = mode;
      if (typeof mode === "string") {
        bits = 0;
        for (let i = 0; i < mode.length; i++) {
          const d = StringPrototypeCharCodeAt(mode, i) - 48;
          if (d < 0 || d > 7) throw new TypeError('The argument \'mode\' must be a 32-bit unsigned integer or an octal string. Received ' + kindOf(mode));
          bits = bits * 8 + d;
        }
      }
      if (typeof bits !== "number" || bits < 0 || bits > 0xffffffff || bits % 1 !== 0) {
        throw new TypeError('The "mode" argument must be a 32-bit unsigned integer or an octal string. Received ' + kindOf(mode));
      }
      fsCall("chmod", { op: "chmod", path, mode: bits % 0o10000 });
    },
    statSync(path) {
      return stats(fsCall("stat", { op: "stat", path })[0].stat);
    },
    existsSync(path) {
      try {
        fsCall("stat", { op: "stat", path });
        return true;
      } catch {
        return false;
      }
    },
    rmSync(path, options) {
      try {
        fsCall("rm", { op: "remove", path, recursive: !!(options && options.recursive) });
      } catch (e) {
        if (!(options && options.force && e.code === "ENOENT")) throw e;
      }
    },
    unlinkSync(path) {
      const st = fsCall("stat", { op: "stat", path })[0].stat;
      if (st.kind === "dir") throw new FsError("EISDIR: is a directory, unlink '" + path + "'", "EISDIR", "unlink", path);
      fsCall("unlink", { op: "remove", path, recursive: false });
    },
    rmdirSync(path) {
      const st = fsCall("stat", { op: "stat", path })[0].stat;
      if (st.kind !== "dir") throw new FsError("ENOTDIR: not a directory, rmdir '" + path + "'", "ENOTDIR", "rmdir", path);
      fsCall("rmdir", { op: "remove", path, recursive: false });
    },
    renameSync(from, to) {
      fsCall("rename", { op: "rename", from, to });
    },
  };
  const promises = {};
  for (const name of ObjectKeys(sync)) {
    if (name === "existsSync") continue;
    const fn = sync[name];
    promises[StringPrototypeSlice(name, 0, -4)] = async (...a) => ReflectApply(fn, undefined, a);
  }
  const fs = { ...sync, ...promises, promises };
  hidden(global, "fs", fs);
  // The working directory of guest code (shared with the shell later).
  // (prelude/process.js adds the rest of Node's `process`.)
  const processObject = {
    cwd: () => fsCall("cwd", { op: "cwd" })[0].cwd,
    chdir: (path) => void fsCall("chdir", { op: "chdir", path }),
  };
  hidden(global, "process", processObject);

  // ---- randomness --------------------------------------------------------
  // Math.random is xoshiro128** seeded from the host's random source (secure
  // and distinct per sandbox, or seeded in deterministic mode);
  // crypto.getRandomValues and crypto.randomUUID read the source directly.

  // Seeded on first use, not here: the prelude runs once at build time for
  // the pre-initialised snapshot every instance starts from.
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, seeded = false;
  function next32() {
    if (!seeded) {
      const seed = new Uint32Array(TypedArrayPrototypeGetBuffer(random(16)));
      if (seed[0] | seed[1] | seed[2] | seed[3]) {
        s0 = seed[0]; s1 = seed[1]; s2 = seed[2]; s3 = seed[3];
      } else {
        s0 = 1; s1 = 2; s2 = 3; s3 = 4;
      }
      seeded = true;
    }
    const result = MathImul(((MathImul(s1, 5) << 7) | (MathImul(s1, 5) >>> 25)), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  }
  hidden(Math, "random", function random() {
    return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
  });
  const crypto = {
    getRandomValues(array) {
      const kind = ArrayBufferIsView(array) ? TypedArrayPrototypeGetSymbolToStringTag(array) : undefined;
      if (kind === undefined || kind === "Float32Array" || kind === "Float64Array") {
        throw new TypeError("getRandomValues needs an integer typed array");
      }
      const length = TypedArrayPrototypeGetByteLength(array);
      if (length > 65536) throw new RangeError("getRandomValues takes at most 65536 bytes");
      const bytes = new Uint8Array(TypedArrayPrototypeGetBuffer(array), TypedArrayPrototypeGetByteOffset(array), length);
      TypedArrayPrototypeSet(bytes, random(length));
      return array;
    },
    randomUUID() {
      const b = random(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const hex = [];
      for (let i = 0; i < 16; i++) ArrayPrototypePush(hex, StringPrototypePadStart(NumberPrototypeToString(b[i], 16), 2, "0"));
      const h = ArrayPrototypeJoin(hex, "");
      const part = (from, to) => StringPrototypeSlice(h, from, to);
      return part(0, 8) + "-" + part(8, 12) + "-" + part(12, 16) + "-" + part(16, 20) + "-" + part(20);
    },
  };
  hidden(global, "crypto", crypto);

  // ---- timers ------------------------------------------------------------
  // Node's event loop, one callback at a time (the native side runs the
  // microtasks between two), in phases: the timers due when the phase
  // began (earliest, then oldest), then the immediates queued before the
  // check phase began, then again. Timers wait in a binary heap by (due, id);
  // a cleared one stays there until it reaches the top, and the heap is
  // rebuilt when such leftovers outnumber the live timers.

  const timers = new Map(); // id -> { id, due, fn, args, every }
  const heap = [];
  let immediates = [], immediateHead = 0;
  // The loop's clock for the timers phase (-1: read it at the next call),
  // and where the check phase stops in `immediates` (-1: not in it).
  let loopNow = -1, checkEnd = -1;
  let timerSeq = 0;
  // Timers that do not keep a settled run going (Node's unref'd timers,
  // such as AbortSignal.timeout's).
  let weakTimers = 0;
  let uncaught; // [value] of an exception thrown by a callback, or an unhandled rejection
  const earlier = (a, b) => a.due < b.due || (a.due === b.due && a.id < b.id);
  function heapPush(t) {
    ArrayPrototypePush(heap, t);
    for (let i = heap.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (!earlier(heap[i], heap[up])) break;
      const x = heap[i]; heap[i] = heap[up]; heap[up] = x;
      i = up;
    }
  }
  function heapPop() {
    const top = heap[0], last = ArrayPrototypePop(heap);
    if (heap.length === 0) return top;
    heap[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && earlier(heap[l], heap[m])) m = l;
      if (r < heap.length && earlier(heap[r], heap[m])) m = r;
      if (m === i) break;
      const x = heap[i]; heap[i] = heap[m]; heap[m] = x;
      i = m;
    }
    return top;
  }
  // The earliest live timer, leftovers of cleared ones dropped on the way.
  function heapTop() {
    while (heap.length && MapPrototypeGet(timers, heap[0].id) !== heap[0]) heapPop();
    return heap[0];
  }
  function schedule(fn, ms, args, repeat, weak) {
    if (typeof fn !== "function") throw callbackError(fn);
    // As Node: anything but a delay from 1 ms to 2^31-1 ms is 1 ms.
    let delay = Number(ms);
    if (!(delay >= 1 && delay <= 2147483647)) delay = 1;
    const id = ++timerSeq;
    const t = { __proto__: null, id, due: DateNow() + delay, delay, fn, args, every: repeat ? delay : 0, weak: weak === true };
    MapPrototypeSet(timers, id, t);
    if (weak === true) weakTimers++;
    if (heap.length > 64 && heap.length > 2 * MapPrototypeGetSize(timers)) {
      ArrayPrototypeSplice(heap, 0, heap.length);
      MapPrototypeForEach(timers, (live) => { if (!live.immediate) heapPush(live); });
    }
    heapPush(t);
    armed();
    return handle(Timeout, id);
  }
  const callbackError = (fn) => {
    const e = new TypeError('The "callback" argument must be of type function. Received ' + received(fn));
    setOwn(e, "code", "ERR_INVALID_ARG_TYPE");
    return e;
  };
  // Node's description of a wrong argument ("type string ('x')", "undefined").
  function received(v) {
    if (v === null || v === undefined) return String(v);
    if (typeof v === "function") return "function " + v.name;
    if (typeof v === "object") {
      const C = constructorOf(ObjectGetPrototypeOf(v));
      return C && C.name ? "an instance of " + nameOf(C) : inspect(v, 1);
    }
    let shown = inspect(v, 1);
    if (shown.length > 28) shown = StringPrototypeSlice(shown, 0, 25) + "...";
    return "type " + typeof v + " (" + shown + ")";
  }
  // `await shell("ls | wc -l")` → { stdout, stderr, exitCode }: the shell of
  // this sandbox (same files, same tools and capabilities), run to completion.
  hidden(global, "shell", async function shell(script) {
    if (typeof script !== "string") throw new TypeError("shell() takes the script as a string, got " + kindOf(script));
    const result = shellop(script);
    return { stdout: result[0], stderr: result[1], exitCode: Number(result[2]) };
  });
  function dropTimer(id) {
    const t = MapPrototypeGet(timers, id);
    if (t === undefined) return;
    if (t.weak) weakTimers--;
    MapPrototypeDelete(timers, id);
  }
  // Node's Timeout and Immediate objects: the timer's id as their primitive
  // value (clearTimeout takes either), ref/unref (an unref'd timer keeps no
  // settled run going), hasRef, refresh and close.
  const timerIds = new WeakMap(); // Timeout or Immediate -> id
  const handle = (Kind, id) => {
    const h = new Kind();
    WeakMapPrototypeSet(timerIds, h, id);
    return h;
  };
  const liveTimer = (h) => {
    const id = WeakMapPrototypeGet(timerIds, h);
    return id === undefined ? undefined : MapPrototypeGet(timers, id);
  };
  const setWeak = (h, weak) => {
    const t = liveTimer(h);
    if (t === undefined || t.weak === weak) return;
    t.weak = weak;
    weakTimers += weak ? 1 : -1;
  };
  class Immediate {
    ref() { setWeak(this, false); return this; }
    unref() { setWeak(this, true); return this; }
    hasRef() { const t = liveTimer(this); return t !== undefined && !t.weak; }
    [Symbol.toPrimitive]() { return WeakMapPrototypeGet(timerIds, this); }
  }
  class Timeout {
    ref() { setWeak(this, false); return this; }
    unref() { setWeak(this, true); return this; }
    hasRef() { const t = liveTimer(this); return t !== undefined && !t.weak; }
    // Starts the delay again from now (a timer that already fired is left).
    refresh() {
      const t = liveTimer(this);
      if (t !== undefined) {
        const again = { __proto__: null, id: t.id, due: DateNow() + t.delay, delay: t.delay, fn: t.fn, args: t.args, every: t.every, weak: t.weak };
        MapPrototypeSet(timers, t.id, again);
        heapPush(again);
        armed();
      }
      return this;
    }
    close() { clear(this); return this; }
    [Symbol.toPrimitive]() { return WeakMapPrototypeGet(timerIds, this); }
  }
  const clear = (id) => {
    // A Timeout or Immediate, its number, or a number-like string.
    const key = typeof id === "number" ? id : typeof id === "string" ? Number(id)
      : typeof id === "object" && id !== null ? WeakMapPrototypeGet(timerIds, id) : undefined;
    if (key !== undefined) dropTimer(key);
  };
  hidden(global, "setTimeout", function setTimeout(fn, ms, ...args) { return schedule(fn, ms, args, false); });
  hidden(global, "setInterval", function setInterval(fn, ms, ...args) { return schedule(fn, ms, args, true); });
  hidden(global, "setImmediate", function setImmediate(fn, ...args) {
    if (typeof fn !== "function") throw callbackError(fn);
    const id = ++timerSeq;
    const t = { __proto__: null, id, due: 0, fn, args, every: 0, immediate: true, weak: false };
    MapPrototypeSet(timers, id, t);
    ArrayPrototypePush(immediates, t);
    armed();
    return handle(Immediate, id);
  });
  hidden(global, "clearTimeout", function clearTimeout(id) { clear(id); });
  hidden(global, "clearInterval", function clearInterval(id) { clear(id); });
  hidden(global, "clearImmediate", function clearImmediate(id) { clear(id); });
  const resolved = PromiseResolve(undefined);
  hidden(global, "queueMicrotask", function queueMicrotask(fn) {
    if (typeof fn !== "function") throw callbackError(fn);
    PromisePrototypeThen(resolved, () => { fn(); });
  });
  // The first live immediate, leftovers of cleared ones dropped.
  function nextImmediate() {
    while (immediateHead < immediates.length) {
      const t = immediates[immediateHead];
      if (MapPrototypeGet(timers, t.id) === t) return t;
      immediateHead++;
    }
    if (immediateHead) { immediates = []; immediateHead = 0; }
    return undefined;
  }
  // A callback's exception goes to the script's 'uncaughtException'
  // listeners when it has any (one that throws raises its own exception);
  // otherwise it is the run's uncaught error.
  function raise(e, origin) {
    if (uncaught) return;
    if (processListeners("uncaughtException") > 0) {
      try {
        emitProcess("uncaughtException", e, origin);
        return;
      } catch (again) {
        e = again;
      }
    }
    uncaught = [e];
  }
  // An unhandled rejection goes to the script's 'unhandledRejection'
  // listeners; without any, it is raised as an uncaught exception (a
  // reason that is not an Error wrapped as Node wraps it).
  function unhandled(reason, promise) {
    if (uncaught) return;
    if (processListeners("unhandledRejection") > 0) {
      try {
        emitProcess("unhandledRejection", reason, promise);
      } catch (e) {
        uncaught = [e];
      }
      return;
    }
    if (reason !== null && typeof reason === "object" && isA(reason, ErrorPrototype)) {
      raise(reason, "unhandledRejection");
      return;
    }
    let shown;
    try {
      shown = reason !== null && typeof reason === "object" ? "#<" + toStr(nameOf(constructorOf(ObjectGetPrototypeOf(reason))) || "Object") + ">" : toStr(typeof reason === "symbol" ? SymbolPrototypeToString(reason) : reason);
    } catch {
      shown = "#<Object>";
    }
    const e = new Error(
      "This error originated either by throwing inside of an async function without a catch block, " +
        "or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"" +
        shown + "\".",
    );
    setOwn(e, "stack", "");
    setOwn(e, "name", "UnhandledPromiseRejection");
    setOwn(e, "code", "ERR_UNHANDLED_REJECTION");
    raise(e, "unhandledRejection");
  }
  // `performance`: QuickJS's own counts from an origin taken when the
  // pre-initialised snapshot was made, so it could start below 0. Here it
  // counts from the first use in this instance (0 or more, monotonic), and
  // `timeOrigin` is the wall-clock time (ms since the epoch) of that moment.
  const intrinsicPerformance = global.performance;
  const monotonic =
    intrinsicPerformance && typeof intrinsicPerformance.now === "function"
      ? FunctionPrototypeBind(intrinsicPerformance.now, intrinsicPerformance)
      : DateNow;
  let perfBase;
  let perfOrigin;
  const perfStart = () => {
    if (perfBase === undefined) {
      perfBase = monotonic();
      perfOrigin = DateNow();
    }
  };
  const performance = {};
  hidden(performance, "now", function now() {
    perfStart();
    const t = monotonic() - perfBase;
    return t > 0 ? t : 0;
  });
  ObjectDefineProperty(performance, "timeOrigin", {
    __proto__: null,
    get() {
      perfStart();
      return perfOrigin;
    },
    enumerable: true,
    configurable: true,
  });
  hidden(global, "performance", performance);

