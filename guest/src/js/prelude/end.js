  // ---- what the native side calls --------------------------------------

  // What modules.js resets before each run.
  const runHooks = [];

  return {
    // Called before each run: the output budget, and the tool names when they changed.
    begin(n, names) {
      budget[1] = n;
      budget[2] = n;
      uncaught = undefined;
      exitCode = undefined;
      exiting = false;
      for (let i = 0; i < runHooks.length; i++) runHooks[i]();
      if (names) {
        registered = copyOf(names);
        for (let i = 0; i < names.length; i++) bind(names[i]);
      }
    },
    // Ms until the next timer or immediate, -1 without any, -2 once a
    // callback threw or a rejection went unhandled (the run then stops
    // waiting). Pending calls are the native side's to count.
    // Once the script has settled (`settled`), weak timers alone keep nothing going.
    nextTimer(settled) {
      if (uncaught) return -2;
      const size = MapPrototypeGetSize(timers);
      if (!size || (settled && size === weakTimers)) return -1;
      if (nextImmediate() !== undefined) return 0;
      const t = heapTop();
      return t === undefined ? -1 : MathMax(0, t.due - DateNow());
    },
    // Runs one callback. In the timers phase: a timer that was due when the
    // phase began; when none is left, the check phase: the immediates
    // queued before it began (those they queue wait for the next one). A
    // timer set from a timer callback therefore runs after the immediates
    // set beside it, as in Node, however long the callback took.
    runTimers() {
      if (loopNow < 0) loopNow = DateNow();
      let t;
      for (let pass = 0; pass < 2 && t === undefined; pass++) {
        if (checkEnd < 0) {
          const top = heapTop();
          if (top !== undefined && top.due <= loopNow) {
            t = top;
            break;
          }
          if (nextImmediate() === undefined) {
            loopNow = DateNow();
            continue;
          }
          checkEnd = immediates.length;
        }
        const i = nextImmediate();
        if (i !== undefined && immediateHead < checkEnd) {
          immediateHead++;
          dropTimer(i.id);
          t = i;
        } else {
          checkEnd = -1;
          loopNow = DateNow();
        }
      }
      if (t === undefined) return;
      if (!t.immediate) {
        heapPop();
        if (t.every) {
          t.due = DateNow() + t.every;
          heapPush(t);
        } else {
          dropTimer(t.id);
        }
      }
      try {
        ReflectApply(t.fn, undefined, t.args);
      } catch (e) {
        raise(e, "uncaughtException");
      }
    },
    unhandled,
    runTicks,
    processEvents,
    // util.inspect (modules.js), and how it shows instances of a prototype.
    inspect: inspectWith,
    inspectAs(proto, show) { MapPrototypeSet(inspectHooks, proto, show); },
    onRun(fn) { ArrayPrototypePush(runHooks, fn); },
    formatArgs: format,
    // The error a failed call's promise rejects with.
    toolError(message, code, reason, tool, toolCode, status) {
      return new ToolError(message, code, reason || undefined, tool, toolCode ?? undefined, status ?? undefined);
    },
    // Calls and timers left behind end with the run. `failed` is given
    // when the run ends on its own (not by process.exit): the script's
    // 'exit' listeners run first, with its exit code.
    end(failed) {
      if (failed !== undefined && !exiting && processListeners("exit") > 0) {
        exiting = true;
        try {
          emitProcess("exit", uncaught || failed ? 1 : exitStatus(exitCode, "code") || 0);
        } catch (e) {
          if (!uncaught) uncaught = [e];
        }
      }
      // Nothing is allocated when nothing was left: a run that changes no
      // page here leaves its sandbox that much smaller once idle.
      if (MapPrototypeGetSize(timers)) MapPrototypeClear(timers);
      weakTimers = 0;
      if (heap.length) ArrayPrototypeSplice(heap, 0, heap.length);
      if (immediates.length) immediates = [];
      immediateHead = 0;
      loopNow = -1;
      checkEnd = -1;
      dropTicks();
      const u = uncaught;
      uncaught = undefined;
      return u;
    },
    // The top-level return value: strings as they are, anything else as JSON
    // (falling back to inspect for what JSON cannot express); also printed.
    render(value) {
      if (value === undefined) return undefined;
      let text;
      if (typeof value === "string") text = value;
      else {
        try { text = JSONStringify(value); } catch { text = undefined; }
        if (text === undefined) text = inspect(value);
      }
      emit(STDOUT, [text]);
      return StringPrototypeToWellFormed(text);
    },
    // [name, message, stack, printed] of an uncaught exception.
    describe(e) {
      if (e !== null && typeof e === "object" && isA(e, ErrorPrototype)) {
        let name = "Error", message = "", stack = "";
        try { name = String(e.name); } catch {}
        try { message = String(e.message); } catch {}
        try { const s = stackOf(e); stack = typeof s === "string" ? s : ""; } catch {}
        const printed = "Uncaught " + errorText(e) + "\n";
        return [
          StringPrototypeToWellFormed(name),
          StringPrototypeToWellFormed(message),
          StringPrototypeToWellFormed(stack),
          StringPrototypeToWellFormed(printed),
        ];
      }
      let shown;
      try { shown = inspect(e, 1); } catch { shown = "exception"; }
      return ["Error", StringPrototypeToWellFormed("Uncaught " + shown), "", StringPrototypeToWellFormed("Uncaught " + shown + "\n")];
    },
  };
})
