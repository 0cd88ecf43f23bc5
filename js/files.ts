// The sandbox's file system as the host sees it.

import type { NativeSandbox } from "./binding";
import { CordonError, FsError } from "./errors";
import { isPlainObject, show } from "./options";
import type { Errno, FileStat } from "./types";

interface FsReplyJson {
  errno?: Errno | null;
  message?: string | null;
  stat?: { kind: "file" | "dir"; size: number; mtime_ms: number } | null;
  entries?: { name: string; kind: string }[] | null;
  cwd?: string | null;
}

/**
 * The sandbox's file system from the host, without running guest code. The
 * same tree guest code sees as `fs`; paths are guest paths (relative ones
 * resolve against /workspace).
 */
export class SandboxFs {
  #request: (request: object, data?: Uint8Array) => [FsReplyJson, Buffer];

  /** @internal */
  constructor(nativeSandbox: NativeSandbox) {
    this.#request = (request, data) => {
      const path = (request as { path?: unknown }).path;
      if (typeof path !== "string") {
        throw new CordonError("INVALID_OPTIONS", `path must be a string, got ${show(path)}`);
      }
      const reply = nativeSandbox.fsRequest(JSON.stringify(request), data ?? null);
      const len = reply.readUInt32LE(0);
      const json = JSON.parse(reply.subarray(4, 4 + len).toString("utf8")) as FsReplyJson;
      if (json.errno) throw new FsError(json.errno, json.message ?? json.errno, path);
      return [json, reply.subarray(4 + len)];
    };
  }

  /** Writes a file (creating or replacing it); text is stored as UTF-8. */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.writeFileSync(path, data);
  }

  /** @internal */
  writeFileSync(path: string, data: string | Uint8Array): void {
    let bytes: Uint8Array;
    if (typeof data === "string") {
      if (!data.isWellFormed()) throw new CordonError("INVALID_OPTIONS", "file text contains a lone UTF-16 surrogate");
      bytes = Buffer.from(data, "utf8");
    } else if (data instanceof Uint8Array) {
      bytes = data;
    } else {
      throw new CordonError("INVALID_OPTIONS", `file data must be a string or a Uint8Array, got ${show(data)}`);
    }
    this.#request({ op: "write", path, mode: "truncate" }, bytes);
  }

  /** Reads a file: bytes, or text with `"utf8"`. */
  async readFile(path: string): Promise<Uint8Array>;
  async readFile(path: string, encoding: "utf8"): Promise<string>;
  async readFile(path: string, encoding?: "utf8"): Promise<Uint8Array | string> {
    if (encoding !== undefined && encoding !== "utf8") {
      throw new CordonError("INVALID_OPTIONS", `unsupported encoding ${show(encoding)}; use "utf8" or none`);
    }
    const [, bytes] = this.#request({ op: "read", path });
    return encoding === "utf8" ? bytes.toString("utf8") : new Uint8Array(bytes);
  }

  /** Names in a directory, sorted. */
  async readdir(path: string): Promise<string[]> {
    const [reply] = this.#request({ op: "readdir", path });
    return (reply.entries ?? []).map((e) => e.name);
  }

  async stat(path: string): Promise<FileStat> {
    const [reply] = this.#request({ op: "stat", path });
    const st = reply.stat!;
    return { kind: st.kind, size: st.size, mtimeMs: st.mtime_ms };
  }

  /** Removes a file, or a directory (with `recursive` when it is not empty). */
  async rm(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.#request({ op: "remove", path, recursive: options.recursive === true });
  }

  /** Creates a directory (and its parents with `recursive`). */
  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.#request({ op: "mkdir", path, recursive: options.recursive === true });
  }

  /** @internal */
  mkdirSync(path: string): void {
    this.#request({ op: "mkdir", path, recursive: true });
  }
}

/** Writes `files` into a new sandbox; a bad entry closes it and rejects. */
export function seed(fs: SandboxFs, nativeSandbox: NativeSandbox, files: unknown): void {
  if (!isPlainObject(files)) {
    nativeSandbox.close();
    throw new CordonError("INVALID_OPTIONS", `files must be a record of path → content, got ${show(files)}`);
  }
  for (const [path, content] of Object.entries(files)) {
    try {
      const slash = path.lastIndexOf("/");
      if (slash > 0) fs.mkdirSync(path.slice(0, slash));
      fs.writeFileSync(path, content as string | Uint8Array);
    } catch (err) {
      nativeSandbox.close();
      const why = err instanceof Error ? err.message : String(err);
      throw new CordonError("INVALID_OPTIONS", `files[${JSON.stringify(path)}]: ${why}`);
    }
  }
}
