//! The shell's session state: variables, functions, options and positional
//! parameters. It persists across runs of one sandbox (the working directory
//! lives in the file system, shared with JavaScript).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use brush_parser::ast;

/// `set` options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `-e`: exit when a command fails outside a condition.
    pub errexit: bool,
    /// `-u`: expanding an unset variable is an error.
    pub nounset: bool,
    /// `-o pipefail`: a pipeline fails when any stage fails.
    pub pipefail: bool,
    /// `-x`: print commands before running them.
    pub xtrace: bool,
    /// `-f`: no pathname expansion.
    pub noglob: bool,
    /// `-C`: `>` does not overwrite an existing file (`>|` does).
    pub noclobber: bool,
    /// `-a`: assigned variables are exported.
    pub allexport: bool,
    /// `-E`: the `ERR` trap also runs in functions and subshells.
    pub errtrace: bool,
    /// The other `set -o` options not at their default (`emacs`, `vi`,
    /// `verbose`, `posix`, …), by name: kept and listed.
    pub others: BTreeSet<&'static str>,
    /// `shopt` options not at their default, by name (see
    /// [`crate::builtins::shopt`]).
    pub shopt: BTreeSet<&'static str>,
}

impl Options {
    /// Whether the `shopt` option `name` is on.
    pub fn shopt(&self, name: &str) -> bool {
        self.shopt.contains(name) != crate::builtins::shopt::default(name)
    }
}

/// A shell variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub value: String,
    pub exported: bool,
}

/// `declare` attributes that change how a variable's values are stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Attrs {
    /// `-i`: assignments are arithmetic.
    pub integer: bool,
    /// `-l`: values are lowercased.
    pub lower: bool,
    /// `-u`: values are uppercased.
    pub upper: bool,
    /// `-n`: a name reference; its value names the variable it stands for.
    pub nameref: bool,
}

impl Attrs {
    /// The value as stored under `-l` / `-u` (`-i` is evaluated by the caller).
    pub fn apply(self, value: String) -> String {
        if self.lower {
            value.to_lowercase()
        } else if self.upper {
            value.to_uppercase()
        } else {
            value
        }
    }
}

/// An indexed array: sparse, as bash's (`a[7]=x` makes one element;
/// `unset 'a[1]'` leaves a hole).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Indexed {
    items: BTreeMap<usize, String>,
}

impl Indexed {
    pub fn get(&self, index: usize) -> Option<&String> {
        self.items.get(&index)
    }

    pub fn first(&self) -> Option<&String> {
        self.items.get(&0)
    }

    pub fn set(&mut self, index: usize, value: String) {
        self.items.insert(index, value);
    }

    /// The element at `index`, created empty when missing.
    pub fn slot(&mut self, index: usize) -> &mut String {
        self.items.entry(index).or_default()
    }

    pub fn remove(&mut self, index: usize) {
        self.items.remove(&index);
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// One past the highest index: where `a+=(x)` puts `x`.
    pub fn next_index(&self) -> usize {
        self.items.keys().next_back().map_or(0, |i| i + 1)
    }

    /// A subscript as an index: negative ones count back from
    /// [`next_index`](Self::next_index); `None` before the start.
    pub fn resolve(&self, index: i64) -> Option<usize> {
        if index < 0 {
            let end = i64::try_from(self.next_index()).ok()?;
            usize::try_from(end + index).ok()
        } else {
            usize::try_from(index).ok()
        }
    }

    pub fn keys(&self) -> Vec<usize> {
        self.items.keys().copied().collect()
    }

    pub fn values(&self) -> Vec<String> {
        self.items.values().cloned().collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = (usize, &String)> {
        self.items.iter().map(|(i, v)| (*i, v))
    }
}

impl FromIterator<String> for Indexed {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        Self { items: iter.into_iter().enumerate().collect() }
    }
}

/// An associative array (`declare -A`): entries in insertion order; listed
/// in bash's order ([`Assoc::ordered`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assoc {
    entries: Vec<(String, String)>,
}

impl Assoc {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Sets a key, keeping its place when it exists.
    pub fn set(&mut self, key: &str, value: String) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.entries.retain(|(k, _)| k != key);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in the order bash lists them: bash keeps them in a hash
    /// table of 1024 buckets (FNV-1 hash of the key), each bucket's newest
    /// entry first, and walks the buckets in order.
    pub fn ordered(&self) -> Vec<(&str, &str)> {
        let mut order: Vec<(u32, usize)> =
            self.entries.iter().enumerate().map(|(i, (k, _))| (bash_hash(k) & 1023, i)).collect();
        order.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        order
            .into_iter()
            .filter_map(|(_, i)| self.entries.get(i))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }
}

/// bash's `hash_string`: 32-bit FNV-1.
fn bash_hash(key: &str) -> u32 {
    key.bytes().fold(2_166_136_261u32, |h, b| h.wrapping_mul(16_777_619) ^ u32::from(b))
}

/// What `local -a/-A NAME` hid: restored when the function returns.
#[derive(Debug, Clone)]
pub struct SavedArray {
    name: String,
    array: Option<Indexed>,
    assoc: Option<Assoc>,
    var: Option<Var>,
    attrs: Option<Attrs>,
}

/// Everything a script can change that outlives one command.
#[derive(Debug, Default, Clone)]
pub struct State {
    /// Global variables.
    pub vars: BTreeMap<String, Var>,
    /// Indexed arrays (`a=(x y)`), global.
    pub arrays: BTreeMap<String, Indexed>,
    /// Associative arrays (`declare -A`), global.
    pub assoc: BTreeMap<String, Assoc>,
    /// `declare -i/-l/-u` attributes, by variable name.
    pub attrs: BTreeMap<String, Attrs>,
    /// Per function call, the arrays its `local -a/-A` hid, restored when
    /// it returns (bash's dynamic scope): name, array, associative array.
    pub saved_arrays: Vec<Vec<SavedArray>>,
    /// One frame per active function call: its `local` variables (`None`:
    /// declared but unset).
    pub locals: Vec<BTreeMap<String, Option<Var>>>,
    /// Per function call, which of its frame's variables are the call's
    /// temporary assignments (`v=x f`) rather than `local`s.
    pub temps: Vec<BTreeSet<String>>,
    /// Frames (by index in `locals`) that are not a function's but the
    /// scope of `v=x eval …` inside one.
    pub scopes: BTreeSet<usize>,
    pub functions: BTreeMap<String, Rc<ast::FunctionBody>>,
    pub options: Options,
    /// `$1`…
    pub positional: Vec<String>,
    /// `$?`.
    pub last_status: i32,
    /// Variables marked readonly.
    pub readonly: BTreeSet<String>,
    /// Exported before being given a value (`export X`): not in `env` yet.
    pub pending_export: BTreeSet<String>,
    /// `trap` actions, by condition number (see [`crate::builtins::trap`]).
    pub traps: BTreeMap<u32, String>,
    /// In a subshell until it sets a trap: the traps of the shell that
    /// started it, which `trap -p` still lists (bash).
    pub inherited_traps: Option<BTreeMap<u32, String>>,
    /// `getopts`' place: the `OPTIND` it left and the offset inside that
    /// argument's group of options.
    pub getopts_pos: (usize, usize),
    /// `pushd`'s directory stack, below the working directory.
    pub dir_stack: Vec<String>,
    /// `alias` definitions.
    pub aliases: BTreeMap<String, String>,
    /// `umask` when set (`None`: bash's default, 022).
    pub umask: Option<u32>,
    /// Declared without ever being given a value (`declare x`,
    /// `declare -a a`): `declare -p` shows them without `=`.
    pub declared: BTreeSet<String>,
    /// `complete` specifications, by command name, in the order given.
    pub completions: Vec<(String, crate::builtins::compspec::CompSpec)>,
    /// `$_`: the last argument of the previous simple command.
    pub last_arg: Option<String>,
    /// `$BASHPID` of this (sub)shell (0: the main shell's, `$$`).
    pub bashpid: u32,
    /// When the session started, for `$SECONDS` (milliseconds).
    pub started_ms: u64,
    /// Functions marked with `export -f`: a child shell gets them.
    pub exported_functions: BTreeSet<String>,
    /// In a subshell (`( )`, a pipeline stage, `$( )`) rather than at a
    /// shell process's top level.
    pub subshell: bool,
    /// Background jobs (`cmd &`), emulated.
    pub jobs: crate::jobs::Jobs,
    /// `history`'s entries.
    pub history: crate::history::History,
}

impl State {
    pub fn new() -> Self {
        let mut state = Self::default();
        for (name, value) in [
            ("HOME", "/workspace"),
            ("PATH", "/usr/bin:/bin"),
            ("SHELL", "/bin/sh"),
            ("USER", "user"),
            ("LANG", "C.UTF-8"),
            ("TERM", "dumb"),
        ] {
            state.vars.insert(name.into(), Var { value: value.into(), exported: true });
        }
        for (name, value) in [("IFS", " \t\n"), ("OPTIND", "1"), ("OSTYPE", "linux-gnu")] {
            state.vars.insert(name.into(), Var { value: value.into(), exported: false });
        }
        // The sandbox's user and parent process: fixed, and readonly as in bash.
        for (name, value) in [("UID", "1000"), ("EUID", "1000"), ("PPID", "0")] {
            state.vars.insert(name.into(), Var { value: value.into(), exported: false });
            state.readonly.insert(name.into());
        }
        crate::builtins::set::refresh_vars(&mut state);
        state
    }

    /// What a new shell process (`bash -c`, a script run by its path)
    /// starts with: this shell's environment and exported functions, its
    /// umask and clock; none of its other variables, functions, aliases,
    /// options or traps.
    pub fn child(&self) -> Self {
        let mut child = Self::new();
        child.vars.retain(|_, var| !var.exported);
        for (name, value) in self.environment() {
            child.vars.insert(name, Var { value, exported: true });
        }
        for name in &self.exported_functions {
            if let Some(body) = self.functions.get(name) {
                child.functions.insert(name.clone(), Rc::clone(body));
                child.exported_functions.insert(name.clone());
            }
        }
        // An exported SHELLOPTS carries the `set -o` options (not shopt's).
        if self.pending_export.contains("SHELLOPTS") || self.vars.get("SHELLOPTS").is_some_and(|v| v.exported)
        {
            child.options = Options { shopt: BTreeSet::new(), ..self.options.clone() };
        }
        child.umask = self.umask;
        child.started_ms = self.started_ms;
        child.bashpid = self.bashpid;
        child
    }

    /// A variable's value, locals first (through a name reference).
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.ref_target(name) {
            Some(target) => self.get_target(&target),
            None => self.get_own(name),
        }
    }

    /// What the name reference `name` stands for (`x` or `arr[2]`),
    /// followed through references to references; `None` for other names.
    /// A circle of references (`ref1` → `ref2` → `ref1`) stands for no
    /// variable: the empty name, which reads as unset and cannot be set.
    pub fn ref_target(&self, name: &str) -> Option<String> {
        let mut target: Option<String> = None;
        let mut seen: Vec<&str> = vec![name];
        loop {
            let current = target.as_deref().unwrap_or(name);
            if !self.attrs.get(current).is_some_and(|a| a.nameref) {
                break;
            }
            match self.get_own(current) {
                Some(t) if seen.contains(&t) => return Some(String::new()),
                Some(t) if !t.is_empty() => {
                    seen.push(t);
                    target = Some(t.to_string());
                }
                _ => break,
            }
        }
        target
    }

    /// The name an assignment or `${name[i]}` acts on: a reference's target
    /// when that is a plain name, else `name`.
    pub fn resolve_name(&self, name: &str) -> String {
        match self.ref_target(name) {
            Some(t) if !t.contains('[') && !t.is_empty() => t,
            _ => name.to_string(),
        }
    }

    fn element(target: &str) -> Option<(&str, &str)> {
        target.strip_suffix(']').and_then(|t| t.split_once('['))
    }

    fn get_target(&self, target: &str) -> Option<&str> {
        let Some((base, key)) = Self::element(target) else {
            return self.get_own(target);
        };
        if let Some(assoc) = self.assoc.get(base) {
            return assoc.get(key);
        }
        let array = self.arrays.get(base)?;
        array.resolve(key.trim().parse().ok()?).and_then(|i| array.get(i)).map(String::as_str)
    }

    /// A variable's own value, not through a name reference.
    pub fn get_own(&self, name: &str) -> Option<&str> {
        for frame in self.locals.iter().rev() {
            if let Some(slot) = frame.get(name) {
                return slot.as_ref().map(|v| v.value.as_str());
            }
        }
        if let Some(var) = self.vars.get(name) {
            return Some(var.value.as_str());
        }
        if let Some(assoc) = self.assoc.get(name) {
            return assoc.get("0");
        }
        self.arrays.get(name).and_then(|a| a.first()).map(String::as_str)
    }

    /// Whether `name` is an array of either kind.
    pub fn is_array(&self, name: &str) -> bool {
        self.arrays.contains_key(name) || self.assoc.contains_key(name)
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Assigns, to the innermost local of that name or else the global.
    /// Returns `false` (and changes nothing) for a readonly variable.
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> bool {
        if let Some(target) = self.ref_target(name) {
            if let Some((base, key)) = Self::element(&target) {
                let (base, key) = (base.to_string(), key.to_string());
                if self.readonly.contains(&base) {
                    return false;
                }
                if let Some(assoc) = self.assoc.get_mut(&base) {
                    assoc.set(&key, value.into());
                } else if let Ok(i) = key.trim().parse::<i64>() {
                    let scalar = self.vars.remove(&base).map(|v| v.value);
                    let array = self.arrays.entry(base).or_insert_with(|| scalar.into_iter().collect());
                    if let Some(i) = array.resolve(i) {
                        array.set(i, value.into());
                    }
                }
                return true;
            }
            if target.is_empty() {
                return false;
            }
            return self.set(&target, value);
        }
        if self.readonly.contains(name) {
            return false;
        }
        let mut value = value.into();
        if let Some(attrs) = self.attrs.get(name) {
            value = attrs.apply(value);
        }
        self.pending_export.remove(name);
        self.declared.remove(name);
        for frame in self.locals.iter_mut().rev() {
            if let Some(slot) = frame.get_mut(name) {
                let exported = slot.as_ref().is_some_and(|v| v.exported);
                *slot = Some(Var { value, exported });
                return true;
            }
        }
        if let Some(assoc) = self.assoc.get_mut(name) {
            assoc.set("0", value);
            return true;
        }
        match self.vars.get_mut(name) {
            Some(var) => var.value = value,
            None => {
                self.arrays.remove(name);
                self.vars.insert(name.to_string(), Var { value, exported: false });
            }
        }
        true
    }

    /// Marks a variable exported (creating it empty-valued only if `value`).
    pub fn export(&mut self, name: &str, value: Option<String>) -> bool {
        if let Some(value) = value {
            if !self.set(name, value) {
                return false;
            }
        }
        for frame in self.locals.iter_mut().rev() {
            if let Some(Some(var)) = frame.get_mut(name) {
                var.exported = true;
                return true;
            }
        }
        match self.vars.get_mut(name) {
            Some(var) => var.exported = true,
            None => {
                // `export NAME` without a value marks it for later; bash shows
                // it in `export -p` but not in `env` until it has a value.
                self.vars.insert(name.to_string(), Var { value: String::new(), exported: true });
                self.pending_export.insert(name.to_string());
            }
        }
        true
    }

    /// Removes a variable, as bash's dynamic scope does: a local of the
    /// current function stays local and unset; a calling function's local
    /// or a call's temporary assignment goes, showing the one it hid.
    pub fn unset(&mut self, name: &str) -> bool {
        if self.readonly.contains(name) {
            return false;
        }
        let innermost = self.locals.len().saturating_sub(1);
        for (i, frame) in self.locals.iter_mut().enumerate().rev() {
            if let Some(slot) = frame.get_mut(name) {
                let temp = self.temps.get_mut(i).is_some_and(|temps| temps.remove(name));
                if i == innermost && !temp {
                    *slot = None;
                } else {
                    frame.remove(name);
                }
                return true;
            }
        }
        self.vars.remove(name);
        self.arrays.remove(name);
        self.assoc.remove(name);
        self.attrs.remove(name);
        self.pending_export.remove(name);
        self.declared.remove(name);
        true
    }

    /// Enters a function call.
    pub fn push_frame(&mut self) {
        self.locals.push(BTreeMap::new());
        self.temps.push(BTreeSet::new());
        self.saved_arrays.push(Vec::new());
    }

    /// Leaves a function call: its locals go, the arrays they hid return.
    pub fn pop_frame(&mut self) {
        self.locals.pop();
        self.temps.pop();
        self.scopes.remove(&self.locals.len());
        for saved in self.saved_arrays.pop().unwrap_or_default().into_iter().rev() {
            let name = saved.name;
            self.arrays.remove(&name);
            self.assoc.remove(&name);
            self.attrs.remove(&name);
            self.vars.remove(&name);
            if let Some(a) = saved.array {
                self.arrays.insert(name.clone(), a);
            }
            if let Some(a) = saved.assoc {
                self.assoc.insert(name.clone(), a);
            }
            if let Some(v) = saved.var {
                self.vars.insert(name.clone(), v);
            }
            if let Some(a) = saved.attrs {
                self.attrs.insert(name, a);
            }
        }
    }

    /// Makes the array (or attributed variable) `name` local to the current
    /// function: what it was is saved and it starts empty. `false` outside a
    /// function.
    pub fn local_array(&mut self, name: &str) -> bool {
        let Some(frame) = self.saved_arrays.last_mut() else {
            return false;
        };
        if frame.iter().any(|s| s.name == name) {
            return true;
        }
        frame.push(SavedArray {
            name: name.to_string(),
            array: self.arrays.remove(name),
            assoc: self.assoc.remove(name),
            var: self.vars.remove(name),
            attrs: self.attrs.remove(name),
        });
        true
    }

    /// Declares `name` local to the current function (error outside one).
    pub fn local(&mut self, name: &str, value: Option<String>) -> bool {
        // Without a value it starts as a call's temporary assignment had
        // it (`v=x f` where f says `local v`), not as a calling function's
        // local.
        let inherited = match value {
            Some(_) => None,
            None => self.locals.iter().zip(&self.temps).rev().find_map(|(frame, temps)| {
                frame.get(name).map(|slot| slot.clone().filter(|_| temps.contains(name)))
            }),
        };
        // In a scope frame only its own temporary variable is made local
        // there; other names go to the function's frame.
        let mut at = self.locals.len().saturating_sub(1);
        while self.scopes.contains(&at) && !self.temps.get(at).is_some_and(|t| t.contains(name)) && at > 0 {
            at -= 1;
        }
        let Some(frame) = self.locals.get_mut(at) else {
            return false;
        };
        if let Some(temps) = self.temps.get_mut(at) {
            temps.remove(name);
        }
        let var = match value {
            Some(value) => Some(Var { value, exported: false }),
            None => inherited.flatten(),
        };
        frame.insert(name.to_string(), var);
        true
    }

    /// Whether `name` is in the current function's frame as a `local`
    /// (not as the call's temporary assignment).
    pub fn is_local_here(&self, name: &str) -> bool {
        self.locals.last().is_some_and(|frame| frame.contains_key(name))
            && !self.temps.last().is_some_and(|temps| temps.contains(name))
    }

    /// Enters the scope of `v=x eval …` inside a function (see `scopes`).
    pub fn push_scope(&mut self, temps: Vec<(String, String)>) {
        self.push_frame_with(temps);
        self.scopes.insert(self.locals.len() - 1);
    }

    /// Enters a function call whose command had temporary assignments: they
    /// are variables of its frame (exported) until it returns.
    pub fn push_frame_with(&mut self, temps: Vec<(String, String)>) {
        self.push_frame();
        for (name, value) in temps {
            if let (Some(frame), Some(marks)) = (self.locals.last_mut(), self.temps.last_mut()) {
                frame.insert(name.clone(), Some(Var { value, exported: true }));
                marks.insert(name);
            }
        }
    }

    /// Exported variables with a value, sorted by name, as `env` shows them.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        for (name, var) in &self.vars {
            if var.exported && !self.pending_export.contains(name) {
                out.insert(name.clone(), var.value.clone());
            }
        }
        for frame in &self.locals {
            for (name, slot) in frame {
                match slot {
                    Some(var) if var.exported => {
                        out.insert(name.clone(), var.value.clone());
                    }
                    _ => {
                        out.remove(name);
                    }
                }
            }
        }
        out.into_iter().collect()
    }
}
