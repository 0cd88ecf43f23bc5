//! A [`System`] over `cordon-vfs` for the shell's own tests and fuzzing:
//! the same file system the sandbox uses, with output collected in memory, a
//! virtual clock, two tools (`echo`, `math.add`) and an optional step budget.

use crate::system::{
    DirEntry, FsError, JsOutcome, Kind, Meta, Stream, System, ToolError, ToolInfo, WriteMode,
};
use cordon_vfs::{FileSystem, MemFs, Quotas};

pub struct TestSystem {
    pub fs: MemFs,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub now_ms: u64,
    pub output_limit: usize,
    pub tool_log: Vec<(String, String)>,
    /// Commands and loop iterations left before the run is interrupted
    /// (`None`: unbounded).
    pub steps_left: Option<u64>,
}

impl Default for TestSystem {
    fn default() -> Self {
        Self::new()
    }
}

impl TestSystem {
    pub fn new() -> Self {
        Self {
            fs: MemFs::new(Quotas::default()),
            stdout: Vec::new(),
            stderr: Vec::new(),
            // 2026-01-02T03:04:05Z
            now_ms: 1_767_323_045_000,
            output_limit: 16 * 1024 * 1024,
            tool_log: Vec::new(),
            steps_left: None,
        }
    }
}

fn fs_err(e: cordon_vfs::FsError) -> FsError {
    FsError::new(e.errno.as_str(), e.to_string())
}

fn kind(k: cordon_vfs::Kind) -> Kind {
    match k {
        cordon_vfs::Kind::File => Kind::File,
        cordon_vfs::Kind::Dir => Kind::Dir,
    }
}

impl System for TestSystem {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, FsError> {
        self.fs.read(path).map_err(fs_err)
    }
    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
        let mode = match mode {
            WriteMode::Truncate => cordon_vfs::WriteMode::Truncate,
            WriteMode::Append => cordon_vfs::WriteMode::Append,
            WriteMode::CreateNew => cordon_vfs::WriteMode::CreateNew,
        };
        self.fs.write(path, data, mode).map_err(fs_err)
    }
    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        self.fs.mkdir(path, recursive).map_err(fs_err)
    }
    fn readdir(&mut self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        self.fs
            .readdir(path)
            .map(|v| v.into_iter().map(|(name, k)| DirEntry { name, kind: kind(k) }).collect())
            .map_err(fs_err)
    }
    fn stat(&mut self, path: &str) -> Result<Meta, FsError> {
        self.fs
            .stat(path)
            .map(|s| Meta { kind: kind(s.kind), size: s.size, mtime_ms: s.mtime_ms, mode: s.mode })
            .map_err(fs_err)
    }
    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        self.fs.remove(path, recursive).map_err(fs_err)
    }
    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError> {
        self.fs.rename(from, to).map_err(fs_err)
    }
    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError> {
        self.fs.chmod(path, mode).map_err(fs_err)
    }

    fn chdir(&mut self, path: &str) -> Result<String, FsError> {
        self.fs.chdir(path).map_err(fs_err)?;
        Ok(self.fs.cwd())
    }
    fn cwd(&mut self) -> String {
        self.fs.cwd()
    }
    fn output(&mut self, stream: Stream, bytes: &[u8]) -> bool {
        let buf = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        let room = self.output_limit.saturating_sub(buf.len());
        if bytes.len() > room {
            buf.extend_from_slice(bytes.get(..room).unwrap_or_default());
            return false;
        }
        buf.extend_from_slice(bytes);
        true
    }
    fn now_ms(&mut self) -> u64 {
        self.now_ms
    }
    fn sleep(&mut self, ms: u64) {
        self.now_ms += ms;
    }
    fn tool_call(&mut self, name: &str, args_json: &str) -> Result<String, ToolError> {
        self.tool_log.push((name.to_string(), args_json.to_string()));
        match name {
            "echo" => Ok(args_json.to_string()),
            "math.add" => {
                let v: serde_json::Value = serde_json::from_str(args_json).unwrap_or_default();
                let num = |k: &str| v.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
                let sum = num("a") + num("b");
                Ok(serde_json::json!({ "sum": sum }).to_string())
            }
            _ => Err(ToolError {
                code: "DENIED".into(),
                reason: Some("NO_CAPABILITY".into()),
                message: format!("no capability grants {name}"),
            }),
        }
    }
    fn tools(&mut self) -> Vec<ToolInfo> {
        vec![
            ToolInfo { name: "echo".into(), description: "Returns its arguments.".into(), schema: String::new() },
            ToolInfo {
                name: "math.add".into(),
                description: "Adds two numbers.".into(),
                schema: r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#.into(),
            },
        ]
    }
    fn javascript(&mut self, _code: &str, _args: &[String], _stdin: &[u8]) -> JsOutcome {
        JsOutcome { stdout: Vec::new(), stderr: b"js: not available in this harness\n".to_vec(), status: 127 }
    }
    fn interrupted(&mut self) -> bool {
        match &mut self.steps_left {
            None => false,
            Some(0) => true,
            Some(n) => {
                *n -= 1;
                false
            }
        }
    }
}

/// Runs `script` in a fresh shell and system: (stdout, stderr, status).
pub fn run(script: &str) -> (String, String, i32) {
    run_with_stdin(script, Vec::new())
}

/// [`run`] with `stdin` as the script's standard input.
pub fn run_with_stdin(script: &str, stdin: Vec<u8>) -> (String, String, i32) {
    let mut sys = TestSystem::new();
    let mut shell = crate::Shell::new();
    let status = shell.run_with_stdin(&mut sys, script, stdin);
    (
        String::from_utf8_lossy(&sys.stdout).into_owned(),
        String::from_utf8_lossy(&sys.stderr).into_owned(),
        status,
    )
}

/// The jq front end alone, for fuzzing: parses and compiles `program`
/// against the builtins; the error is jq's message.
pub fn jq_compile(program: &str) -> Result<(), String> {
    let arena = jaq_core::load::Arena::default();
    let names = ["$ENV".to_string(), "$__loc__".to_string(), "$ARGS".to_string()];
    crate::builtins::jq::compile(&arena, program, &names).map(|_| ())
}

/// jq's JSON reader over `data`, for fuzzing: the number of values read
/// before the end or the first error (with jq's description of it).
pub fn jq_parse(data: &[u8]) -> Result<usize, String> {
    let mut parser = crate::builtins::jq::json::Parser::new(data);
    let mut n = 0;
    while let Some(value) = parser.next_value() {
        match value {
            Ok(_) => n += 1,
            Err(e) => return Err(crate::builtins::jq::json::describe(data, &e)),
        }
    }
    Ok(n)
}
