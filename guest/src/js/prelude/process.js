
  // ---- process -----------------------------------------------------------
  // The rest of Node's `process` (cwd and chdir are with fs above): stdout
  // and stderr, exit and exitCode, argv, env, nextTick, hrtime, uptime.
  // Standard input (`process.stdin`) is modules.js's, beside Buffer.

  const chunkText = new TextDecoder();
  function streamWrite(stream, chunk, encoding, callback) {
    if (typeof encoding === "function") callback = encoding;
    let text;
    if (typeof chunk === "string") text = chunk;
    else if (ArrayBufferIsView(chunk)) text = chunkText.decode(chunk);
    else {
      const e = new TypeError('The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' + received(chunk));
      setOwn(e, "code", "ERR_INVALID_ARG_TYPE");
      throw e;
    }
    if (budget[stream] >= 0 && text.length) budget[stream] = write(stream, StringPrototypeToWellFormed(text));
    if (typeof callback === "function") PromisePrototypeThen(resolved, () => { callback(null); });
    return true;
  }
  function writeStream(stream) {
    const out = {};
    hidden(out, "write", function write(chunk, encoding, callback) { return streamWrite(stream, chunk, encoding, callback); });
    hidden(out, "end", function end(chunk, encoding, callback) {
      if (typeof chunk === "function") callback = chunk;
      else if (chunk !== undefined && chunk !== null) streamWrite(stream, chunk, encoding);
      if (typeof callback === "function") PromisePrototypeThen(resolved, () => { callback(); });
      return out;
    });
    setOwn(out, "fd", stream);
    setOwn(out, "writable", true);
    return out;
  }
  hidden(processObject, "stdout", writeStream(STDOUT));
  hidden(processObject, "stderr", writeStream(STDERR));

  // process.exitCode: validated as Node does, handed to the native side
  // (the run's exit code if it ends without an error), reset for each run.
  let exitCode;
  const exitStatus = (code, what) => {
    if (code === undefined || code === null) return undefined;
    const n = typeof code === "string" && code !== "" ? Number(code) : code;
    if (typeof n !== "number" || NumberIsNaN(n)) {
      const e = new TypeError('The "' + what + '" argument must be of type number. Received ' + received(code));
      setOwn(e, "code", "ERR_INVALID_ARG_TYPE");
      throw e;
    }
    if (!NumberIsInteger(n)) {
      const e = new RangeError('The value of "' + what + '" is out of range. It must be an integer. Received ' + toStr(code));
      setOwn(e, "code", "ERR_OUT_OF_RANGE");
      throw e;
    }
    return n & 255;
  };
  ObjectDefineProperty(processObject, "exitCode", {
    __proto__: null,
    get() { return exitCode; },
    set(code) {
      const status = exitStatus(code, "code");
      exitCode = code === undefined || code === null ? undefined : code;
      exitop(status === undefined ? 0 : status, false);
    },
    enumerable: true,
    configurable: false,
  });
  // Ends the run at once with `code` (else exitCode, else 0): no later line,
  // callback or pending call of the script runs.
  // The script's 'exit' listeners run first (once a run), with the code.
  hidden(processObject, "exit", function exit(code) {
    const status = exitStatus(code, "code");
    if (status !== undefined) {
      exitCode = status;
      exitop(status, false);
    }
    if (!exiting) {
      exiting = true;
      emitProcess("exit", exitStatus(exitCode, "code") || 0);
    }
    exitop(exitStatus(exitCode, "code") || 0, true);
  });
  // Whether the run's 'exit' listeners were called.
  let exiting = false;
  // process's events: modules.js makes process an EventEmitter and hands
  // over its emit and listenerCount; the prelude emits 'exit',
  // 'uncaughtException' and 'unhandledRejection'.
  let emitProcess = () => false;
  let processListeners = () => 0;
  function processEvents(emit, count) {
    emitProcess = emit;
    processListeners = count;
  }
  // As the CLI sets it for a script file (`cordon run main.js a b`).
  setOwn(processObject, "argv", ["cordon", "main.js"]);
  setOwn(processObject, "argv0", "cordon");
  setOwn(processObject, "execPath", "cordon");
  setOwn(processObject, "execArgv", []);
  // No environment reaches the sandbox: empty, for the script to fill.
  setOwn(processObject, "env", {});
  setOwn(processObject, "platform", "linux");
  setOwn(processObject, "arch", "wasm32");
  setOwn(processObject, "pid", 1);
  setOwn(processObject, "ppid", 0);
  setOwn(processObject, "title", "cordon");
  // Callbacks and their arguments, in pairs; the native side calls
  // `runTicks` before it runs promise jobs again.
  let ticks = [];
  let tickHead = 0;
  hidden(processObject, "nextTick", function nextTick(fn, ...args) {
    if (typeof fn !== "function") throw callbackError(fn);
    if (tickHead === ticks.length) armed(1);
    ArrayPrototypePush(ticks, fn, args);
  });
  // Runs the queue, callbacks queued meanwhile included; one that throws
  // (with no 'uncaughtException' listener) is the run's uncaught error and
  // the rest are dropped. Promise jobs
  // already queued still run, as after a timer that threw (QuickJS cannot
  // drop them, and they would otherwise run in the next run).
  function runTicks() {
    while (tickHead < ticks.length) {
      const fn = ticks[tickHead], args = ticks[tickHead + 1];
      tickHead += 2;
      try {
        ReflectApply(fn, undefined, args);
      } catch (e) {
        raise(e, "uncaughtException");
        if (uncaught) {
          armed();
          break;
        }
      }
    }
    dropTicks();
  }
  function dropTicks() {
    if (ticks.length) ticks = [];
    tickHead = 0;
  }
  const nanos = () => performance.now() * 1e6;
  function hrtime(previous) {
    let ns = nanos();
    if (ArrayIsArray(previous)) ns -= previous[0] * 1e9 + previous[1];
    const seconds = MathTrunc(ns / 1e9);
    return [seconds, MathTrunc(ns - seconds * 1e9)];
  }
  hidden(hrtime, "bigint", function bigint() { return BigInt(MathTrunc(nanos())); });
  hidden(processObject, "hrtime", hrtime);
  hidden(processObject, "uptime", function uptime() { return performance.now() / 1000; });
