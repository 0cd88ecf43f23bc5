// What the README's AI SDK 7 example takes as given.
import type { Tool } from "ai";

declare global {
  const wipe: Tool<Record<string, never>, string>;
}
