// Serves a sandbox's tool messages: approval, the tool's own schema, the
// tool, and the reply, batched back to the native side.

import { MessageKind, Reply } from "../native";
import { afterSettle, native, parseRecords, type Dispatch } from "./binding";
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

/**
 * What a tool's error says of itself: its `code` (a string or an integer)
 * and its `status` (or `statusCode`, as HTTP clients name it). The runtime
 * decides which of them the guest sees.
 */
function ownDetail(e: unknown): { code?: string; status?: number } | undefined {
  if (e === null || typeof e !== "object") return undefined;
  try {
    const { code, status, statusCode } = e as { code?: unknown; status?: unknown; statusCode?: unknown };
    const detail: { code?: string; status?: number } = {};
    if ((typeof code === "string" && code.length <= 64) || Number.isInteger(code)) detail.code = String(code);
    const http = status ?? statusCode;
    if (typeof http === "number") detail.status = http;
    return detail.code === undefined && detail.status === undefined ? undefined : detail;
  } catch {
    // A getter (or a proxy) that throws: the message alone crosses.
    return undefined;
  }
}

/** A tool's failure as a reply and its text: its arguments refused by an adapter, or an error. */
function failure(e: unknown): [Reply, string] {
  if (e instanceof InvalidArgumentsError) return [Reply.InvalidArguments, errorText(e)];
  const detail = ownDetail(e);
  if (detail === undefined) return [Reply.ToolError, errorText(e)];
  return [Reply.ToolErrorDetail, JSON.stringify({ message: errorText(e), ...detail })];
}

/** A result JSON cannot hold; its message says what it was. */
class InvalidResult extends Error {}

/**
 * A tool's result as JSON, for the native side, which checks its size and
 * that it is JSON; throws {@link InvalidResult} for what JSON cannot hold.
 */
function serialise(name: string, result: unknown): string {
  const invalid = (what: string) => new InvalidResult(`${name} returned ${what}, which is not JSON data`);
  if (result === undefined) return "null";
  switch (typeof result) {
    case "function":
      throw invalid("a function");
    case "symbol":
      throw invalid("a symbol");
    case "bigint":
      throw invalid("a BigInt");
    case "number":
      if (!Number.isFinite(result)) throw invalid(String(result));
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    const msg = e instanceof Error ? e.message : "";
    throw invalid(/circular/i.test(msg) ? "a value with a cycle" : /bigint/i.test(msg) ? "a value with a BigInt" : "a value");
  }
  if (json === undefined) throw invalid("a value");
  return json;
}

/**
 * The dispatcher of a sandbox with `tools`: answers each message at once or
 * when its tool settles, and sends the replies back in batches.
 */
export function makeDispatch(
  tools: NormalTool[],
  { approve, onToolCall }: Pick<SandboxOptions, "approve" | "onToolCall">,
): Dispatch {
  // A message names its tool by its index in `tools` (the policy's list).
  const names = tools.map((t) => t.name.replaceAll("/", "."));
  let seq = 0;
  // Calls sent to this sandbox's tools and not answered yet.
  let inFlight = 0;
  // Replies that settled while other calls of this sandbox were in
  // flight: they cross together, when the last call settles or in a
  // microtask, whichever comes first (a `Promise.all` of a thousand calls
  // is one crossing, not a thousand).
  let doneTokens: number[] = [];
  let doneReplies: Reply[] = [];
  let doneTexts: string[] = [];
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    if (doneTokens.length === 0) return;
    const tokens = doneTokens;
    const replies = doneReplies;
    const texts = doneTexts;
    doneTokens = [];
    doneReplies = [];
    doneTexts = [];
    afterSettle(native.settleToolCalls(tokens, replies, texts, inFlight === 0));
  };
  const settle = (token: number, reply: Reply, text: string): void => {
    if (token === 0) return;
    inFlight--;
    if (inFlight === 0 && doneTokens.length === 0) {
      // The only call in flight (an awaited call in a loop): at once.
      afterSettle(native.settleToolCall(token, reply, text, true));
      return;
    }
    doneTokens.push(token);
    doneReplies.push(reply);
    doneTexts.push(text);
    if (inFlight === 0) flush();
    else if (!flushQueued) {
      flushQueued = true;
      queueMicrotask(flush);
    }
  };
  // Answers one message: at once, or when the tool's promise settles.
  // Runs for every call, so it avoids an async wrapper (two promises).
  const serve = (kind: MessageKind, index: number, payload: string, token: number): void => {
    if (kind === MessageKind.Record || kind === MessageKind.RecordText) {
      try {
        const [record] = parseRecords(payload, kind === MessageKind.RecordText ? [0] : []);
        const returned: unknown = onToolCall?.(record);
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
    const handler = tools[index];
    let call: ToolCallRequest;
    try {
      if (handler === undefined) throw new Error("no tool");
      call = { tool: names[index], args: JSON.parse(payload) as Record<string, unknown> };
    } catch {
      return settle(token, kind === MessageKind.Call ? Reply.ToolError : Reply.Refused, "malformed call");
    }
    if (kind === MessageKind.Approve || kind === MessageKind.ApproveTool) {
      // Only the tool asks: its own rule may waive the approval.
      const rule = kind === MessageKind.ApproveTool ? handler.needsApproval : true;
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
        return settle(token, Reply.Refused, "");
      }
      Promise.resolve(answer).then(
        (ok) => settle(token, ok === true ? Reply.Approved : Reply.Refused, ""),
        () => settle(token, Reply.Refused, ""),
      );
      return;
    }
    if (handler.parse) {
      // The tool's own schema, on exactly the checked value: its
      // refinements, formats, transforms and defaults apply as in its
      // framework, and the tool gets the parse's output.
      let parsed: Parsed | PromiseLike<Parsed>;
      try {
        parsed = handler.parse(call.args);
      } catch (e) {
        return settle(token, Reply.InvalidArguments, errorText(e));
      }
      Promise.resolve(parsed).then(
        (p) => (p.ok ? runTool(handler, call.tool, p.value, token) : settle(token, Reply.InvalidArguments, p.reason)),
        (e: unknown) => settle(token, Reply.InvalidArguments, errorText(e)),
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
      return settle(token, ...failure(e));
    }
    Promise.resolve(result).then(
      (value) => {
        let json: string;
        try {
          json = serialise(tool, value);
        } catch (e) {
          return settle(token, e instanceof InvalidResult ? Reply.InvalidResult : Reply.ToolError, errorText(e));
        }
        settle(token, Reply.Result, json);
      },
      (e: unknown) => settle(token, ...failure(e)),
    );
  };
  const serveOne = (kind: MessageKind, index: number, payload: string, token: number): void => {
    try {
      serve(kind, index, payload, token);
    } catch (e) {
      settle(token, Reply.ToolError, errorText(e));
    }
  };
  // One message: `(kind, tool, payload, token)`. A batch: `(meta, 0,
  // payloads, 0)`, `meta` holding each message's kind, tool and token in turn
  // (`DispatchArgs` in `crates/node/src/driver.rs`).
  return (first, tool, payload, token) => {
    if (typeof first === "number") {
      if (token !== 0) inFlight++;
      return serveOne(first, tool, payload as string, token);
    }
    const meta = first;
    const payloads = payload as string[];
    // Every call of the batch is in flight before the first is served: an
    // answer given at once is not taken for the last one.
    for (let i = 2; i < meta.length; i += 3) if (meta[i] !== 0) inFlight++;
    for (let i = 0; i < payloads.length; i++) {
      try {
        serveOne(meta[3 * i] as MessageKind, meta[3 * i + 1], payloads[i], meta[3 * i + 2]);
      } catch {
        // Never reached (serveOne answers every failure); the rest of the
        // batch is served regardless.
      }
    }
  };
}
