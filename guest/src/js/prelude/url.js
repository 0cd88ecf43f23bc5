
  // ---- URL / URLSearchParams ---------------------------------------------
  // WHATWG URLs parsed and set by the `url` crate (`urlop`); this keeps each
  // URL's parts and ties a URL to its searchParams both ways.

  const PARTS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
  const urlState = new WeakMap(); // URL -> { parts, params }
  const paramsState = new WeakMap(); // URLSearchParams -> { list: [name, value, …], url }
  const invalidUrl = (input, base) => {
    const e = new TypeError("Invalid URL");
    setOwn(e, "code", "ERR_INVALID_URL");
    setOwn(e, "input", input);
    if (base !== undefined) setOwn(e, "base", base);
    return e;
  };
  const missing = (name) => {
    const e = new TypeError('The "' + name + '" argument must be specified');
    setOwn(e, "code", "ERR_MISSING_ARGS");
    return e;
  };
  const urlOf = (self) => {
    const st = WeakMapPrototypeGet(urlState, self);
    if (st === undefined) throw new TypeError("Value of \"this\" must be of type URL");
    return st;
  };
  const paramsOf = (self) => {
    const st = WeakMapPrototypeGet(paramsState, self);
    if (st === undefined) throw new TypeError("Value of \"this\" must be of type URLSearchParams");
    return st;
  };
  // A URL's query changed: its params read it again.
  const reread = (st) => {
    if (st.params !== undefined) paramsOf(st.params).list = urlop(2, StringPrototypeSlice(st.parts[9], 1));
  };
  // A params list changed: its URL's query is written from it.
  const rewrite = (pst) => {
    if (pst.url === undefined) return;
    const st = urlOf(pst.url);
    const query = urlop(3, pst.list);
    const parts = urlop(1, st.parts[0], "search", query);
    if (parts) st.parts = parts;
  };

  class URL {
    constructor(input, base = undefined) {
      if (arguments.length === 0) throw missing("url");
      const text = toStr(input), baseText = base === undefined ? undefined : toStr(base);
      const parts = urlop(0, text, baseText);
      if (!parts) throw invalidUrl(text, baseText);
      WeakMapPrototypeSet(urlState, this, { __proto__: null, parts, params: undefined });
    }
    static canParse(input, base = undefined) {
      return !!urlop(0, toStr(input), base === undefined ? undefined : toStr(base));
    }
    static parse(input, base = undefined) {
      try {
        return new URL(input, base);
      } catch {
        return null;
      }
    }
    get searchParams() {
      const st = urlOf(this);
      if (st.params === undefined) {
        const params = new URLSearchParams();
        paramsOf(params).url = this;
        st.params = params;
        reread(st);
      }
      return st.params;
    }
    toString() { return urlOf(this).parts[0]; }
    toJSON() { return urlOf(this).parts[0]; }
  }
  for (let i = 0; i < PARTS.length; i++) {
    const part = PARTS[i];
    const accessors = {
      __proto__: null,
      get() { return urlOf(this).parts[i]; },
      enumerable: true,
      configurable: true,
    };
    if (part !== "origin") {
      accessors.set = function (value) {
        const st = urlOf(this);
        const parts = urlop(1, st.parts[0], part, toStr(value));
        if (!parts) throw invalidUrl(toStr(value));
        st.parts = parts;
        if (part === "href" || part === "search") reread(st);
      };
    }
    ObjectDefineProperty(URL.prototype, part, accessors);
  }

  class URLSearchParams {
    constructor(init = undefined) {
      let list = [];
      if (init !== null && typeof init === "object") {
        const other = WeakMapPrototypeGet(paramsState, init);
        if (other !== undefined) list = copyOf(other.list);
        else if (typeof init[SymbolIterator] === "function") {
          for (const pair of init) {
            const p = copyOf(pair);
            if (p.length !== 2) {
              const e = new TypeError("Each query pair must be an iterable [name, value] tuple");
              setOwn(e, "code", "ERR_INVALID_TUPLE");
              throw e;
            }
            ArrayPrototypePush(list, toStr(p[0]), toStr(p[1]));
          }
        } else {
          const keys = ObjectKeys(init);
          for (let i = 0; i < keys.length; i++) ArrayPrototypePush(list, keys[i], toStr(init[keys[i]]));
        }
      } else if (init !== undefined) {
        const s = toStr(init);
        list = urlop(2, StringPrototypeStartsWith(s, "?") ? StringPrototypeSlice(s, 1) : s);
      }
      WeakMapPrototypeSet(paramsState, this, { __proto__: null, list, url: undefined });
    }
    get size() { return paramsOf(this).list.length / 2; }
    append(name, value) {
      const st = paramsOf(this);
      ArrayPrototypePush(st.list, toStr(name), toStr(value));
      rewrite(st);
    }
    delete(name, value = undefined) {
      const st = paramsOf(this), key = toStr(name), v = value === undefined ? undefined : toStr(value);
      const kept = [];
      for (let i = 0; i < st.list.length; i += 2) {
        if (st.list[i] === key && (v === undefined || st.list[i + 1] === v)) continue;
        ArrayPrototypePush(kept, st.list[i], st.list[i + 1]);
      }
      st.list = kept;
      rewrite(st);
    }
    get(name) {
      const list = paramsOf(this).list, key = toStr(name);
      for (let i = 0; i < list.length; i += 2) if (list[i] === key) return list[i + 1];
      return null;
    }
    getAll(name) {
      const list = paramsOf(this).list, key = toStr(name), out = [];
      for (let i = 0; i < list.length; i += 2) if (list[i] === key) ArrayPrototypePush(out, list[i + 1]);
      return out;
    }
    has(name, value = undefined) {
      const list = paramsOf(this).list, key = toStr(name), v = value === undefined ? undefined : toStr(value);
      for (let i = 0; i < list.length; i += 2) if (list[i] === key && (v === undefined || list[i + 1] === v)) return true;
      return false;
    }
    set(name, value) {
      const st = paramsOf(this), key = toStr(name), v = toStr(value);
      const kept = [];
      let found = false;
      for (let i = 0; i < st.list.length; i += 2) {
        if (st.list[i] !== key) ArrayPrototypePush(kept, st.list[i], st.list[i + 1]);
        else if (!found) { found = true; ArrayPrototypePush(kept, key, v); }
      }
      if (!found) ArrayPrototypePush(kept, key, v);
      st.list = kept;
      rewrite(st);
    }
    sort() {
      const st = paramsOf(this), pairs = [];
      for (let i = 0; i < st.list.length; i += 2) ArrayPrototypePush(pairs, [st.list[i], st.list[i + 1], i]);
      // By name in UTF-16 code units; equal names keep their order.
      ArrayPrototypeSort(pairs, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[2] - b[2]));
      const list = [];
      for (let i = 0; i < pairs.length; i++) ArrayPrototypePush(list, pairs[i][0], pairs[i][1]);
      st.list = list;
      rewrite(st);
    }
    forEach(fn, thisArg = undefined) {
      if (typeof fn !== "function") throw callbackError(fn);
      const list = paramsOf(this).list;
      for (let i = 0; i < list.length; i += 2) ReflectApply(fn, thisArg, [list[i + 1], list[i], this]);
    }
    *entries() {
      const st = paramsOf(this);
      for (let i = 0; i < st.list.length; i += 2) yield [st.list[i], st.list[i + 1]];
    }
    *keys() {
      const st = paramsOf(this);
      for (let i = 0; i < st.list.length; i += 2) yield st.list[i];
    }
    *values() {
      const st = paramsOf(this);
      for (let i = 0; i < st.list.length; i += 2) yield st.list[i + 1];
    }
    toString() { return urlop(3, paramsOf(this).list); }
  }
  hidden(URLSearchParams.prototype, SymbolIterator, URLSearchParams.prototype.entries);
  hidden(global, "URL", URL);
  hidden(global, "URLSearchParams", URLSearchParams);

  // How console.log shows them, as Node does.
  const urlView = { __proto__: null };
  hidden(urlView, "constructor", URL);
  MapPrototypeSet(inspectHooks, URL.prototype, (url) => {
    const view = { __proto__: urlView };
    for (let i = 0; i < PARTS.length; i++) {
      if (PARTS[i] === "hash") setOwn(view, "searchParams", url.searchParams);
      setOwn(view, PARTS[i], urlOf(url).parts[i]);
    }
    return view;
  });
  MapPrototypeSet(inspectHooks, URLSearchParams.prototype, (params) => {
    const list = paramsOf(params).list, shown = [];
    for (let i = 0; i < list.length; i += 2) ArrayPrototypePush(shown, quote(list[i]) + " => " + quote(list[i + 1]));
    return shown.length ? "URLSearchParams { " + ArrayPrototypeJoin(shown, ", ") + " }" : "URLSearchParams {}";
  });
