// The peers of `npm run bench -- --compare`: the same JavaScript snippets run
// in quickjs-emscripten (QuickJS compiled to WebAssembly with Emscripten, the
// closest alternative) and in node:vm (no security boundary: the floor).
// Each peer gets what the workloads' conventions ask for and nothing more: a
// console.log that collects lines, an async host function add({a, b}), and
// the snippet run as the body of an async function. Outputs are checked by
// the caller exactly as cordon's are.
import vm from "node:vm";
import { getQuickJS } from "quickjs-emscripten";

const format = (values) => values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ");

/** node:vm: a fresh context per sandbox. */
export const nodeVm = {
  name: "node:vm",
  async create() {
    let out = [];
    const context = vm.createContext({
      console: { log: (...args) => out.push(format(args)) },
      add: async ({ a, b }) => a + b,
    });
    return {
      async run(code) {
        out = [];
        await vm.runInContext(`(async () => {\n${code}\n})()`, context);
        return out.join("\n") + (out.length ? "\n" : "");
      },
      close() {},
    };
  },
};

/**
 * quickjs-emscripten: one wasm module per process (its documented use), a new
 * QuickJS runtime and context per sandbox. Host promises are bridged with
 * `newPromise` and the job queue is drained after each settlement, as its
 * README shows.
 */
export async function quickjsEmscripten() {
  const QuickJS = await getQuickJS();
  return {
    name: "quickjs-emscripten",
    async create() {
      const ctx = QuickJS.newContext();
      let out = [];
      const log = ctx.newFunction("log", (...args) => {
        out.push(format(args.map((h) => ctx.dump(h))));
      });
      const consoleObj = ctx.newObject();
      ctx.setProp(consoleObj, "log", log);
      ctx.setProp(ctx.global, "console", consoleObj);
      consoleObj.dispose();
      log.dispose();
      const add = ctx.newFunction("add", (argHandle) => {
        const { a, b } = ctx.dump(argHandle);
        const deferred = ctx.newPromise();
        Promise.resolve(a + b).then((sum) => {
          const h = ctx.newNumber(sum);
          deferred.resolve(h);
          h.dispose();
          deferred.dispose();
          ctx.runtime.executePendingJobs();
        });
        return deferred.handle;
      });
      ctx.setProp(ctx.global, "add", add);
      add.dispose();
      return {
        async run(code) {
          out = [];
          const evaluated = ctx.evalCode(`(async () => {\n${code}\n})()`);
          const handle = ctx.unwrapResult(evaluated);
          const settled = ctx.resolvePromise(handle);
          handle.dispose();
          ctx.runtime.executePendingJobs();
          const result = await settled;
          const value = ctx.unwrapResult(result);
          value.dispose();
          return out.join("\n") + (out.length ? "\n" : "");
        },
        close() {
          ctx.dispose();
        },
      };
    },
  };
}
