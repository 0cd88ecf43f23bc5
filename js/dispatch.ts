// Serves a sandbox's tool messages: approval, the tool's own schema, the
// tool, and the reply, batched back to the native side.

import { afterSettle, native, toRecord, type Dispatch, type NativeToolCall } from "./binding";
import { InvalidArgumentsError } from "./errors";
import type { NormalTool, Parsed } from "./tools";
import type { SandboxOptions, ToolCallRequest } from "./types";

function errorText(e: unknown): string {
  let text: string;
  try {
    if (e instanceof Error) text = String(e.message);
    else if (typeof e === "string") text = e;
    else text = "the tool threw a value that is not an Error";
  } catch {
    // A message getter (or a proxy) that throws: the call still fails
    // with an answer, never with an exception in the dispatcher.
    text = "the tool threw an error whose message cannot be read";
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** A tool's failure as a reply: its arguments refused by an adapter, or an error. */
function failure(e: unknown): string {
  return e instanceof InvalidArgumentsError ? `INVALID_ARGUMENTS\n${errorText(e)}` : `TOOL_ERROR\n${errorText(e)}`;
}

/** Encodes a tool's result for the native side: `o<json>` or `<code>\n<message>`. */
function encodeResult(name: string, result: unknown, maxBytes: number): string {
  const invalid = (what: string) => `TOOL_RESULT_INVALID\n${name} returned ${what}, which is not JSON data`;
  if (result === undefined) return "onull";
  switch (typeof result) {
    case "function":
      return invalid("a function");
    case "symbol":
      return invalid("a symbol");
    case "bigint":
      return invalid("a BigInt");
    case "number":
      if (!Number.isFinite(result)) return invalid(String(result));
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    const msg = e instanceof Error ? e.message : "";
    return invalid(/circular/i.test(msg) ? "a value with a cycle" : /bigint/i.test(msg) ? "a value with a BigInt" : "a value");
  }
  if (json === undefined) return invalid("a value");
  // UTF-8 takes at most 3 bytes per UTF-16 unit: count bytes only when that could matter.
  if (json.length > maxBytes || (json.length * 3 > maxBytes && Buffer.byteLength(json, "utf8") > maxBytes)) {
    return `TOOL_RESULT_TOO_LARGE\n${name} returned more than ${maxBytes} bytes (limits.toolResultBytes)`;
  }
  return `o${json}`;
}

/**
 * The dispatcher of a sandbox with `tools`: answers each message at once or
 * when its tool settles, and sends the replies back in batches. `resultLimit`
 * is set from the sandbox's effective limits before the first call.
 */
export function makeDispatch(
  tools: NormalTool[],
  { approve, onToolCall }: Pick<SandboxOptions, "approve" | "onToolCall">,
  resultLimit: { value: number },
): Dispatch {
  const handlers = new Map(tools.map((t) => [t.name.replaceAll("/", "."), t]));
  let seq = 0;
  // Calls sent to this sandbox's tools and not answered yet.
  let inFlight = 0;
  // Replies that settled while other calls of this sandbox were in
  // flight: they cross together, when the last call settles or in a
  // microtask, whichever comes first (a `Promise.all` of a thousand calls
  // is one crossing, not a thousand).
  let doneTokens: number[] = [];
  let doneReplies: string[] = [];
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    if (doneTokens.length === 0) return;
    const tokens = doneTokens;
    const replies = doneReplies;
    doneTokens = [];
    doneReplies = [];
    afterSettle(native.settleToolCalls(tokens, replies, inFlight === 0));
  };
  const settle = (token: number, reply: string): void => {
    if (token === 0) return;
    inFlight--;
    if (inFlight === 0 && doneTokens.length === 0) {
      // The only call in flight (an awaited call in a loop): at once.
      afterSettle(native.settleToolCall(token, reply, true));
      return;
    }
    doneTokens.push(token);
    doneReplies.push(reply);
    if (inFlight === 0) flush();
    else if (!flushQueued) {
      flushQueued = true;
      queueMicrotask(flush);
    }
  };
  // Answers one message: at once, or when the tool's promise settles.
  // Runs for every call, so it avoids an async wrapper (two promises).
  const serve = (message: string, token: number): void => {
    // `record\n<record>`, or `<kind>\n<tool>\n<args>` (a tool name holds
    // no line break).
    const nl = message.indexOf("\n");
    const kind = message.slice(0, nl);
    if (kind === "record") {
      try {
        const raw = JSON.parse(message.slice(nl + 1)) as NativeToolCall;
        const returned: unknown = onToolCall?.(toRecord({ ...raw, args: raw.args }));
        // An async hook that rejects is the host's own failure: it must
        // not become an unhandled rejection (which ends Node).
        if (returned !== null && typeof returned === "object" && typeof (returned as PromiseLike<unknown>).then === "function") {
          Promise.resolve(returned).catch(() => undefined);
        }
      } catch {
        // A hook that throws does not change the call.
      }
      return;
    }
    const nl2 = message.indexOf("\n", nl + 1);
    let call: ToolCallRequest;
    try {
      if (nl2 < 0) throw new Error("no arguments");
      call = { tool: message.slice(nl + 1, nl2), args: JSON.parse(message.slice(nl2 + 1)) as Record<string, unknown> };
    } catch {
      return settle(token, "TOOL_ERROR\nmalformed call");
    }
    if (kind === "approve" || kind === "approve-tool") {
      // Only the tool asks: its own rule may waive the approval.
      const rule = kind === "approve-tool" ? handlers.get(call.tool)?.needsApproval : true;
      const ask = (needed: unknown): unknown => {
        if (needed === false) return true;
        return approve === undefined ? false : approve({ tool: call.tool, args: call.args });
      };
      let answer: unknown;
      try {
        answer =
          typeof rule === "function"
            ? Promise.resolve(rule(call.args, { toolCallId: `cordon-approval-${++seq}`, toolName: call.tool, messages: [] })).then(
                (needed) => ask(needed === false ? false : true),
              )
            : ask(rule === undefined ? true : rule);
      } catch {
        return settle(token, "false");
      }
      Promise.resolve(answer).then(
        (ok) => settle(token, ok === true ? "true" : "false"),
        () => settle(token, "false"),
      );
      return;
    }
    const handler = handlers.get(call.tool);
    if (!handler) return settle(token, "TOOL_ERROR\nthe tool has no handler");
    if (handler.parse) {
      // The tool's own schema, on exactly the checked value: its
      // refinements, formats, transforms and defaults apply as in its
      // framework, and the tool gets the parse's output.
      let parsed: Parsed | PromiseLike<Parsed>;
      try {
        parsed = handler.parse(call.args);
      } catch (e) {
        return settle(token, `INVALID_ARGUMENTS\n${errorText(e)}`);
      }
      Promise.resolve(parsed).then(
        (p) => (p.ok ? runTool(handler, call.tool, p.value, token) : settle(token, `INVALID_ARGUMENTS\n${p.reason}`)),
        (e: unknown) => settle(token, `INVALID_ARGUMENTS\n${errorText(e)}`),
      );
      return;
    }
    runTool(handler, call.tool, call.args, token);
  };
  const runTool = (handler: NormalTool, tool: string, args: unknown, token: number): void => {
    let result: unknown;
    try {
      result = handler.execute(args, { toolCallId: `cordon-${++seq}`, toolName: tool, messages: [] });
    } catch (e) {
      return settle(token, failure(e));
    }
    Promise.resolve(result).then(
      (value) => {
        let reply: string;
        try {
          reply = encodeResult(tool, value, resultLimit.value);
        } catch (e) {
          reply = `TOOL_ERROR\n${errorText(e)}`;
        }
        settle(token, reply);
      },
      (e: unknown) => settle(token, failure(e)),
    );
  };
  const serveOne = (message: string, token: number): void => {
    try {
      serve(message, token);
    } catch (e) {
      settle(token, `TOOL_ERROR\n${errorText(e)}`);
    }
  };
  return (messages, tokens) => {
    if (typeof messages === "string") {
      if (tokens !== 0) inFlight++;
      return serveOne(messages, tokens as number);
    }
    const list = tokens as number[];
    // Every call of the batch is in flight before the first is served: an
    // answer given at once is not taken for the last one.
    for (let i = 0; i < list.length; i++) if (list[i] !== 0) inFlight++;
    for (let i = 0; i < messages.length; i++) {
      try {
        serveOne(messages[i], list[i]);
      } catch {
        // Never reached (serveOne answers every failure); the rest of the
        // batch is served regardless.
      }
    }
  };
}
