//! `JSON.stringify` of plain data (a tool call's arguments, and the guest's
//! `JSON.stringify` itself: `js::install_json_stringify`) without QuickJS's
//! generic machinery.
//!
//! QuickJS's `JSON.stringify` builds a wrapper object, an array of each
//! object's keys, a stack array and a quoted string per key: for
//! `{ a: 1, b: 2 }` that was a quarter of a tool call's cost in the guest.
//! This path reads the value through property descriptors instead, and
//! gives up (`None`) on anything whose reading script code could observe
//! or whose text it does not produce itself: an accessor, a `toJSON`
//! anywhere on an object's prototype chain, a proxy or any object that is not
//! a plain object or array, an array hole, a symbol, a function, a BigInt,
//! a string with a lone surrogate, a cycle, or nesting past [`MAX_DEPTH`].
//! Nothing it does runs script code, so after `None` the caller calls
//! `JSON.stringify` as if this had not run; when it answers, the text is the
//! one `JSON.stringify` gives (the same keys in the same order, numbers
//! through QuickJS's own `Number` to string conversion, the same escapes).

use std::{cell::RefCell, collections::BTreeMap, ptr};

use rquickjs::qjs;

/// `JS_CLASS_OBJECT` and `JS_CLASS_ARRAY` in QuickJS's class table.
const CLASS_OBJECT: qjs::JSClassID = 1;
const CLASS_ARRAY: qjs::JSClassID = 2;
/// Objects nested deeper than this go to `JSON.stringify`.
const MAX_DEPTH: usize = 64;
/// Keys kept quoted, and the longest kept: scripts use a few keys again and
/// again; a script that makes up keys fills the cache once and then pays
/// the conversion as before.
const KEYS_KEPT: usize = 1024;
/// 2^53: below it, every integral double is exactly an `i64`, and QuickJS
/// prints it as that integer's digits.
const SAFE_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;
const KEY_LEN_KEPT: usize = 64;

/// What stays from one call to the next: the `toJSON` atom and object keys
/// already quoted, each atom held (duplicated) so its number cannot be
/// reused for another string. Tied to the context it was made for.
struct Cache {
    ctx: *mut qjs::JSContext,
    to_json: qjs::JSAtom,
    keys: BTreeMap<qjs::JSAtom, Box<[u8]>>,
}

thread_local! {
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// [`stringify`] of a value borrowed with its context, as the native
/// functions get them.
pub fn stringify_value(ctx: &rquickjs::Ctx<'_>, value: &rquickjs::Value<'_>) -> Option<String> {
    // SAFETY: `stringify`'s contract: `ctx.as_raw()` is the live context `ctx` borrows, and
    // `value.as_raw()` a value of it (the guest has one context) whose reference `value` holds
    // for the whole call.
    unsafe { stringify(ctx.as_raw().as_ptr(), value.as_raw()) }
}

/// The JSON text of `value`, or `None` when `JSON.stringify` must decide.
///
/// # Safety
/// `ctx` must be a live context and `value` a value of it, borrowed for the
/// call.
pub unsafe fn stringify(ctx: *mut qjs::JSContext, value: qjs::JSValue) -> Option<String> {
    CACHE.with(|cache| {
        // No script code runs while this is borrowed.
        let mut cache = cache.try_borrow_mut().ok()?;
        if cache.as_ref().is_none_or(|c| c.ctx != ctx) {
            // SAFETY: `ctx` is live (this function's contract) and the name is the 6 bytes of a
            // NUL-terminated literal. The atom returned is the new cache's, held for the context's
            // life. A cache of another context is dropped without freeing its atoms (that context
            // may be gone): they leak, nothing frees them twice.
            let to_json = unsafe { qjs::JS_NewAtomLen(ctx, c"toJSON".as_ptr(), 6) };
            if to_json == 0 {
                // SAFETY: `ctx` is live (this function's contract).
                unsafe { clear_exception(ctx) };
                return None;
            }
            *cache = Some(Cache { ctx, to_json, keys: BTreeMap::new() });
        }
        let cache = cache.as_mut()?;
        // Room for a small object's text, so the usual arguments (`{ a, b }`)
        // are written without growing the buffer.
        let mut writer = Writer { ctx, cache, out: Vec::with_capacity(64), open: Vec::new() };
        // SAFETY: `Writer::value`'s contract: `value` is a live value of `ctx`, held by the caller
        // for the call (this function's contract), and `writer.ctx` is that context, live for the
        // writer's life, whose atoms `writer.cache` holds: `cache.ctx == ctx`, and the guest's one
        // context lives as long as the instance (`js::ENGINE` is never dropped), so its address
        // is never another context's.
        match unsafe { writer.value(value) }? {
            // The text is built from valid UTF-8 pieces and ASCII escapes.
            Emitted::Written => String::from_utf8(writer.out).ok(),
            Emitted::Skipped => None,
        }
    })
}

enum Emitted {
    Written,
    /// `undefined`: left out of an object, `null` in an array.
    Skipped,
}

struct Writer<'a> {
    /// A live context, for the writer's life (`stringify`'s contract).
    ctx: *mut qjs::JSContext,
    cache: &'a mut Cache,
    out: Vec<u8>,
    /// The objects being written, outermost first (a cycle gives up).
    open: Vec<*mut std::ffi::c_void>,
}

/// Drops a pending exception (only an allocation failure raises one here):
/// `JSON.stringify` then runs and meets the same condition itself.
///
/// # Safety
/// `ctx` is a live context.
unsafe fn clear_exception(ctx: *mut qjs::JSContext) {
    // SAFETY: `ctx` is live (this function's contract). `JS_GetException` hands over the pending
    // exception (an uninitialised value, which holds no reference, when there is none), and
    // `JS_FreeValue` releases that reference once.
    unsafe { qjs::JS_FreeValue(ctx, qjs::JS_GetException(ctx)) };
}

impl Writer<'_> {
    /// Appends `bytes`; `None` when memory runs out (`JSON.stringify` then
    /// raises QuickJS's catchable out-of-memory error instead of the guest
    /// aborting).
    fn put(&mut self, bytes: &[u8]) -> Option<()> {
        self.out.try_reserve(bytes.len()).ok()?;
        self.out.extend_from_slice(bytes);
        Some(())
    }

    /// Appends the JSON text of `v`, or says it is left out (`undefined`).
    ///
    /// # Safety
    /// `v` is a live value of `self.ctx`, whose reference the caller holds for the call.
    unsafe fn value(&mut self, v: qjs::JSValue) -> Option<Emitted> {
        // SAFETY: reads only the tag bits of `v`, a plain copy of a value; nothing is followed.
        let tag = unsafe { qjs::JS_VALUE_GET_NORM_TAG(v) };
        match tag {
            qjs::JS_TAG_INT => {
                // SAFETY: the tag says `v` holds an int32; this reads that payload.
                let n = unsafe { qjs::JS_VALUE_GET_INT(v) };
                self.put(itoa::Buffer::new().format(n).as_bytes())?;
            }
            qjs::JS_TAG_BOOL => {
                // SAFETY: the tag says `v` holds a bool; this reads that payload.
                let b = unsafe { qjs::JS_VALUE_GET_BOOL(v) };
                self.put(if b { b"true" } else { b"false" })?;
            }
            qjs::JS_TAG_NULL => self.put(b"null")?,
            qjs::JS_TAG_UNDEFINED => return Some(Emitted::Skipped),
            qjs::JS_TAG_FLOAT64 => {
                // SAFETY: the tag says `v` holds a float64; this reads that payload.
                let x = unsafe { qjs::JS_VALUE_GET_FLOAT64(v) };
                if x.fract() == 0.0 && x.abs() < SAFE_INTEGER_LIMIT {
                    // An integral double (`-0` included) prints as the
                    // integer (JSON parses every number into a double).
                    self.put(itoa::Buffer::new().format(x as i64).as_bytes())?;
                } else if x.is_finite() {
                    // QuickJS's own Number to string: no script code runs.
                    // SAFETY: `text_of`'s contract: `v` is a number, a live value of `self.ctx`
                    // (this function's contract).
                    let text = unsafe { self.text_of(v) }?;
                    self.put(&text)?;
                } else {
                    self.put(b"null")?;
                }
            }
            qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE => {
                // SAFETY: `text_of`'s contract: `v` is a string (the tag says so), a live value of
                // `self.ctx` (this function's contract).
                let text = unsafe { self.text_of(v) }?;
                self.quote(&text)?;
            }
            // SAFETY: `object`'s contract: `v` is an object (the tag says so), a live value of
            // `self.ctx` (this function's contract).
            qjs::JS_TAG_OBJECT => unsafe { self.object(v) }?,
            _ => return None,
        }
        Some(Emitted::Written)
    }

    /// The UTF-8 text of a string or number (lone surrogates come out as
    /// three-byte sequences, which [`quote`](Self::quote) refuses).
    ///
    /// # Safety
    /// `v` is a live string or number of `self.ctx`.
    unsafe fn text_of(&self, v: qjs::JSValue) -> Option<Vec<u8>> {
        let mut len = 0;
        // SAFETY: `v` is a live string or number of the live `self.ctx` (this function's
        // contract): converting it duplicates the string (flattening a rope) or formats the
        // number, and runs no script code. `len` is a valid out-pointer; the C string returned is
        // freed below.
        let ptr = unsafe { qjs::JS_ToCStringLen2(self.ctx, &mut len, v, false) };
        if ptr.is_null() {
            // SAFETY: `self.ctx` is live (`Writer::ctx`).
            unsafe { clear_exception(self.ctx) };
            return None;
        }
        // SAFETY: `ptr` is not null, so QuickJS returned `len` initialised bytes there, which stay
        // allocated and unchanged until the `JS_FreeCString` below, after the last use of `text`.
        let text = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len as usize) };
        let mut bytes = Vec::new();
        let copied = bytes.try_reserve(text.len()).is_ok();
        if copied {
            bytes.extend_from_slice(text);
        }
        // SAFETY: `ptr` came from `JS_ToCStringLen2` on `self.ctx` and is freed once, here;
        // `text`, which borrowed it, is not used after this.
        unsafe { qjs::JS_FreeCString(self.ctx, ptr) };
        copied.then_some(bytes)
    }

    /// Appends `text` as a JSON string with `JSON.stringify`'s escapes.
    fn quote(&mut self, text: &[u8]) -> Option<()> {
        self.out.try_reserve(text.len() + 2).ok()?;
        self.put(b"\"")?;
        // Bytes are copied in runs; only what needs an escape breaks a run.
        let mut run = 0;
        for (i, &b) in text.iter().enumerate() {
            let short: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..=0x1f => b"",
                // A surrogate code point (0xED 0xA0..=0xBF ..): JSON.stringify
                // escapes it; leave that to it.
                0xed if text.get(i + 1).is_some_and(|&next| next >= 0xa0) => return None,
                _ => continue,
            };
            self.put(text.get(run..i)?)?;
            if short.is_empty() {
                self.put(format!("\\u{b:04x}").as_bytes())?;
            } else {
                self.put(short)?;
            }
            run = i + 1;
        }
        self.put(text.get(run..)?)?;
        self.put(b"\"")
    }

    /// Appends the JSON text of the object `v`.
    ///
    /// # Safety
    /// `v` is a live object of `self.ctx`, whose reference the caller holds for the call.
    unsafe fn object(&mut self, v: qjs::JSValue) -> Option<()> {
        // SAFETY: `v` is a live object (this function's contract); this reads its class id.
        let class = unsafe { qjs::JS_GetClassID(v) };
        if class != CLASS_OBJECT && class != CLASS_ARRAY {
            return None;
        }
        // SAFETY: takes the object's address from the bits of `v`; it is only compared (for
        // cycles), never followed, and stays this object's while the caller holds `v`.
        let id = unsafe { qjs::JS_VALUE_GET_PTR(v) };
        if self.open.len() >= MAX_DEPTH || self.open.contains(&id) {
            return None;
        }
        // SAFETY: `no_to_json`'s contract: `v` is a live object of `self.ctx` (this function's).
        unsafe { self.no_to_json(v) }?;
        self.open.push(id);
        // SAFETY: `v` is a live object of `self.ctx` (this function's contract) of the class each
        // callee requires: an Array for `array`, an ordinary object for `members`.
        let done = if class == CLASS_ARRAY { unsafe { self.array(v) } } else { unsafe { self.members(v) } };
        self.open.pop();
        done
    }

    /// Whether neither `v` nor any of its prototypes has a `toJSON`
    /// property, asked of ordinary objects only, so no getter or proxy trap
    /// runs.
    ///
    /// # Safety
    /// `v` is a live object of `self.ctx`.
    unsafe fn no_to_json(&self, v: qjs::JSValue) -> Option<()> {
        // SAFETY: `v` is a live object of `self.ctx` (this function's contract); the reference
        // this takes is `current`'s, released in the loop.
        let mut current = unsafe { qjs::JS_DupValue(self.ctx, v) };
        loop {
            // SAFETY: `current` is an object this loop holds a reference to: `v`, duplicated
            // above, or a prototype `JS_GetPrototype` returned below.
            let class = unsafe { qjs::JS_GetClassID(current) };
            let found = if class == CLASS_OBJECT || class == CLASS_ARRAY {
                // SAFETY: `current` is a live ordinary object or array (the class is checked),
                // which has no exotic handler, so this runs no script code; with a null
                // descriptor it hands over no value. `to_json` is an atom the cache holds.
                unsafe { qjs::JS_GetOwnProperty(self.ctx, ptr::null_mut(), current, self.cache.to_json) }
            } else {
                1
            };
            // SAFETY: called only when `found == 0`, so `current` is a live ordinary object or
            // array, not a proxy (whose trap could run script code): its prototype comes back as
            // a new reference, or null.
            let proto = if found == 0 { unsafe { qjs::JS_GetPrototype(self.ctx, current) } } else { current };
            // SAFETY: releases the reference `current` holds, once. When `found != 0`, `proto` is
            // the same value, and it is not used after this.
            unsafe { qjs::JS_FreeValue(self.ctx, current) };
            if found != 0 {
                if found < 0 {
                    // SAFETY: `self.ctx` is live (`Writer::ctx`).
                    unsafe { clear_exception(self.ctx) };
                }
                return None;
            }
            // SAFETY: reads only the tag bits of `proto`; nothing is followed.
            match unsafe { qjs::JS_VALUE_GET_NORM_TAG(proto) } {
                qjs::JS_TAG_NULL => return Some(()),
                qjs::JS_TAG_OBJECT => current = proto,
                _ => {
                    // SAFETY: releases `proto`'s reference, once (nothing, for a value without one).
                    unsafe { qjs::JS_FreeValue(self.ctx, proto) };
                    // SAFETY: `self.ctx` is live (`Writer::ctx`).
                    unsafe { clear_exception(self.ctx) };
                    return None;
                }
            }
        }
    }

    /// The own data property `atom` of `v`; `None` when it is missing, an
    /// accessor, or not written.
    ///
    /// # Safety
    /// `v` is a live ordinary object or array of `self.ctx`, and `atom` an atom of its runtime,
    /// each held by the caller for the call.
    unsafe fn own(&mut self, v: qjs::JSValue, atom: qjs::JSAtom) -> Option<Emitted> {
        let mut desc = qjs::JSPropertyDescriptor {
            flags: 0,
            value: qjs::JS_UNDEFINED,
            getter: qjs::JS_UNDEFINED,
            setter: qjs::JS_UNDEFINED,
        };
        // SAFETY: `v` is a live ordinary object or array of `self.ctx` and `atom` a live atom (this
        // function's contract). Neither has an exotic handler, so reading a descriptor runs no
        // script code (a getter is returned, not called; a built-in made on first use is made by
        // C code). `desc` is a valid out-pointer; the values put in it are ours to free, below.
        let found = unsafe { qjs::JS_GetOwnProperty(self.ctx, &mut desc, v, atom) };
        if found <= 0 {
            if found < 0 {
                // SAFETY: `self.ctx` is live (`Writer::ctx`).
                unsafe { clear_exception(self.ctx) };
            }
            return None;
        }
        let written = if desc.flags & qjs::JS_PROP_GETSET as i32 != 0 {
            None
        } else {
            // SAFETY: `value`'s contract: `desc.value` is a data property's value, a live value of
            // `self.ctx` whose reference `desc` holds until it is released below.
            unsafe { self.value(desc.value) }
        };
        // SAFETY: `found > 0`, so each of the three is undefined or a reference
        // `JS_GetOwnProperty` handed over; each is released once, here, and `written` keeps none.
        unsafe {
            qjs::JS_FreeValue(self.ctx, desc.value);
            qjs::JS_FreeValue(self.ctx, desc.getter);
            qjs::JS_FreeValue(self.ctx, desc.setter);
        }
        written
    }

    /// Appends the JSON text of the array `v`.
    ///
    /// # Safety
    /// `v` is a live Array (`JS_CLASS_ARRAY`) of `self.ctx`, held by the caller for the call.
    unsafe fn array(&mut self, v: qjs::JSValue) -> Option<()> {
        let mut len: i64 = 0;
        // SAFETY: `v` is a live Array of `self.ctx` (this function's contract): its `length` is an
        // own data property holding a number, read without running script code. `len` is a valid
        // out-pointer.
        if unsafe { qjs::JS_GetLength(self.ctx, v, &mut len) } < 0 {
            // SAFETY: `self.ctx` is live (`Writer::ctx`).
            unsafe { clear_exception(self.ctx) };
            return None;
        }
        let len = u32::try_from(len).ok()?;
        self.put(b"[")?;
        for i in 0..len {
            if i > 0 {
                self.put(b",")?;
            }
            // SAFETY: `self.ctx` is live (`Writer::ctx`). The atom returned (a new reference for an
            // index past 2^31 - 2, a tagged integer below) is released right after its use.
            let atom = unsafe { qjs::JS_NewAtomUInt32(self.ctx, i) };
            if atom == 0 {
                // SAFETY: `self.ctx` is live (`Writer::ctx`).
                unsafe { clear_exception(self.ctx) };
                return None;
            }
            // A hole reads through the prototype chain: refused by `own`.
            // SAFETY: `own`'s contract: `v` is a live Array of `self.ctx` (this function's
            // contract), and `atom` a live atom, released only on the next line.
            let element = unsafe { self.own(v, atom) };
            // SAFETY: releases the atom `JS_NewAtomUInt32` returned, once; `own` kept no copy.
            unsafe { qjs::JS_FreeAtom(self.ctx, atom) };
            if let Emitted::Skipped = element? {
                self.put(b"null")?;
            }
        }
        self.put(b"]")?;
        Some(())
    }

    /// Appends the JSON text of the ordinary object `v`.
    ///
    /// # Safety
    /// `v` is a live ordinary object (`JS_CLASS_OBJECT`) of `self.ctx`, held by the caller for the
    /// call.
    unsafe fn members(&mut self, v: qjs::JSValue) -> Option<()> {
        let mut tab: *mut qjs::JSPropertyEnum = ptr::null_mut();
        let mut len: u32 = 0;
        let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_ENUM_ONLY) as i32;
        // SAFETY: `v` is a live ordinary object of `self.ctx` (this function's contract), which
        // has no exotic handler: listing its keys runs no script code. `tab` and `len` are valid
        // out-pointers; the table put in `tab`, with its atoms, is ours to free, below.
        if unsafe { qjs::JS_GetOwnPropertyNames(self.ctx, &mut tab, &mut len, v, flags) } < 0 {
            // SAFETY: `self.ctx` is live (`Writer::ctx`).
            unsafe { clear_exception(self.ctx) };
            return None;
        }
        let entries: &[qjs::JSPropertyEnum] =
            // SAFETY: on success QuickJS put `len` initialised entries at `tab` (not null here),
            // which only we free, with their atoms, below, after the last use of `entries`.
            if tab.is_null() { &[] } else { unsafe { std::slice::from_raw_parts(tab, len as usize) } };
        // SAFETY: `members_of`'s contract: `v` is a live ordinary object of `self.ctx` (this
        // function's contract), and `entries` its own string keys, whose atoms `tab` holds.
        let done = unsafe { self.members_of(v, entries) };
        // SAFETY: `tab` and `len` are what `JS_GetOwnPropertyNames` returned (a null `tab` frees
        // nothing), freed once, here; `entries` is not used after this.
        unsafe { qjs::JS_FreePropertyEnum(self.ctx, tab, len) };
        done
    }

    /// Appends `v`'s members named by `entries`, as an object.
    ///
    /// # Safety
    /// `v` is a live ordinary object of `self.ctx`, and `entries` string keys whose atoms stay
    /// live for the call.
    unsafe fn members_of(&mut self, v: qjs::JSValue, entries: &[qjs::JSPropertyEnum]) -> Option<()> {
        self.put(b"{")?;
        let mut first = true;
        for entry in entries {
            let atom = entry.atom;
            let start = self.out.len();
            if !first {
                self.put(b",")?;
            }
            // SAFETY: `key`'s contract: `atom` is a live atom of a string key in `self.ctx`'s
            // runtime (this function's contract).
            unsafe { self.key(atom) }?;
            self.put(b":")?;
            // SAFETY: `own`'s contract: `v` is a live ordinary object of `self.ctx` and `atom` a
            // live atom (this function's contract).
            match unsafe { self.own(v, atom) }? {
                Emitted::Written => first = false,
                Emitted::Skipped => self.out.truncate(start),
            }
        }
        self.put(b"}")?;
        Some(())
    }

    /// Appends the key `atom` quoted, from the cache when it is there.
    ///
    /// # Safety
    /// `atom` is a live atom of a string key in `self.ctx`'s runtime.
    unsafe fn key(&mut self, atom: qjs::JSAtom) -> Option<()> {
        if let Some(quoted) = self.cache.keys.get(&atom) {
            self.out.try_reserve(quoted.len()).ok()?;
            self.out.extend_from_slice(quoted);
            return Some(());
        }
        let mut len = 0;
        // SAFETY: `atom` is a live atom of a string key in `self.ctx`'s runtime (this function's
        // contract); `len` is a valid out-pointer. The C string returned is freed below.
        let key = unsafe { qjs::JS_AtomToCStringLen(self.ctx, &mut len, atom) };
        if key.is_null() {
            // SAFETY: `self.ctx` is live (`Writer::ctx`).
            unsafe { clear_exception(self.ctx) };
            return None;
        }
        let start = self.out.len();
        // SAFETY: `key` is not null, so QuickJS returned `len` initialised bytes there, allocated
        // until the `JS_FreeCString` below; `quote` only copies them.
        let quoted = self.quote(unsafe { std::slice::from_raw_parts(key.cast::<u8>(), len as usize) });
        // SAFETY: `key` came from `JS_AtomToCStringLen` on `self.ctx` and is freed once, here, after
        // its last use.
        unsafe { qjs::JS_FreeCString(self.ctx, key) };
        quoted?;
        let text = self.out.get(start..)?;
        if self.cache.keys.len() < KEYS_KEPT && text.len() <= KEY_LEN_KEPT + 2 {
            let mut kept = Vec::new();
            if kept.try_reserve_exact(text.len()).is_ok() {
                kept.extend_from_slice(text);
                // SAFETY: `atom` is live (this function's contract). The reference taken is the
                // cache's, never released, so the atom's number keeps naming this key while it
                // keys `keys`.
                unsafe { qjs::JS_DupAtom(self.ctx, atom) };
                self.cache.keys.insert(atom, kept.into_boxed_slice());
            }
        }
        Some(())
    }
}

/// The value of a JSON text that is an integer literal in `i32`'s range
/// (`1001`, `-7`), which needs no parser; `None` for any other text (`-0`
/// and `1.0` are doubles to JSON).
pub fn int_literal(text: &[u8]) -> Option<i32> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let well_formed = !digits.is_empty()
        && digits.len() <= 10
        && digits.iter().all(u8::is_ascii_digit)
        && (digits.len() == 1 || digits.first() != Some(&b'0'))
        && text != b"-0";
    if !well_formed {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}
