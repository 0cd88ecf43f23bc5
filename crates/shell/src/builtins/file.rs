//! `file`: determine file type, like file(1) 5.4x for the common cases:
//! empty files, directories, a few binary formats recognised by their
//! magic numbers (PNG, GIF, JPEG, gzip, bzip2, xz, zip, tar, PDF, ELF,
//! WebAssembly), scripts with `#!`, JSON, CSV, HTML, XML, C source, and
//! text by encoding (ASCII, UTF-8, ISO-8859) with its line terminators.
//! Anything else is `data`.

use super::args::{self, HasArg, Spec};
use super::common::time::{civil, MONTHS};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "file",
    run,
    help: "Usage: file [OPTION...] [FILE...]\n\
Determine type of FILEs.\n\
\n\
  -b, --brief                do not prepend filenames to output lines\n\
  -F, --separator STRING     use string as separator instead of `:'\n\
  -i, --mime                 output MIME type strings (--mime-type and --mime-encoding)\n\
      --mime-type            output the MIME type\n\
      --mime-encoding        output the MIME encoding\n\
  -L, --dereference          accepted (the file system has no links)\n\
  -N, --no-pad               do not pad output\n\
\n\
Recognises empty files, directories, PNG, GIF, JPEG, gzip, bzip2, xz, zip, tar,\n\
PDF, ELF and WebAssembly headers, #! scripts, JSON, CSV, HTML, XML, C source and\n\
ASCII/UTF-8/ISO-8859 text; everything else is 'data'.\n",
    help_flag: true,
};

const USAGE: &str = "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Show {
    Description,
    MimeType,
    MimeEncoding,
    Mime,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "bF:iLNh",
        long: &[
            ("brief", 'b', HasArg::No),
            ("separator", 'F', HasArg::Yes),
            ("mime", 'i', HasArg::No),
            ("mime-type", 't', HasArg::No),
            ("mime-encoding", 'e', HasArg::No),
            ("dereference", 'L', HasArg::No),
            ("no-dereference", 'h', HasArg::No),
            ("no-pad", 'N', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("file", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // file prints its usage after the getopt message, status 1.
            let first = msg.lines().next().unwrap_or_default();
            ctx.err(format!("{first}\n{USAGE}"));
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err(USAGE);
        return 1;
    }
    let mut show = Show::Description;
    for (c, _) in &parsed.opts {
        show = match c {
            'i' => Show::Mime,
            't' => Show::MimeType,
            'e' => Show::MimeEncoding,
            _ => show,
        };
    }
    let brief = parsed.has('b');
    let sep = parsed.value('F').unwrap_or(":").to_string();
    let pad = !parsed.has('N');
    let width = parsed.operands.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for name in &parsed.operands {
        let (desc, mime, enc) = describe(ctx, name);
        let text = match show {
            Show::Description => desc,
            Show::MimeType => mime,
            Show::MimeEncoding => enc,
            Show::Mime => format!("{mime}; charset={enc}"),
        };
        if !brief {
            out.push_str(name);
            out.push_str(&sep);
            if pad {
                out.extend(std::iter::repeat_n(' ', width - name.chars().count()));
            }
            out.push(' ');
        }
        out.push_str(&text);
        out.push('\n');
    }
    let _ = ctx.out(out);
    0
}

/// (description, MIME type, MIME encoding) of one operand.
fn describe(ctx: &mut Ctx, name: &str) -> (String, String, String) {
    if name == "/dev/null" {
        return ("character special (1/3)".into(), "inode/chardevice".into(), "binary".into());
    }
    let meta = match ctx.sys().stat(name) {
        Ok(m) => m,
        Err(e) => {
            let msg = format!("cannot open `{name}' ({})", e.describe());
            return (msg.clone(), msg.clone(), msg);
        }
    };
    if meta.kind == Kind::Dir {
        return ("directory".into(), "inode/directory".into(), "binary".into());
    }
    let data = match ctx.sys().read(name) {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("cannot open `{name}' ({})", e.describe());
            return (msg.clone(), msg.clone(), msg);
        }
    };
    classify(&data)
}

fn classify(data: &[u8]) -> (String, String, String) {
    if data.is_empty() {
        return ("empty".into(), "inode/x-empty".into(), "binary".into());
    }
    if data.len() == 1 {
        return ("very short file (no magic)".into(), "application/octet-stream".into(), "binary".into());
    }
    if let Some((desc, mime)) = magic(data) {
        return (desc, mime.into(), "binary".into());
    }
    let Some(text) = text_info(data) else {
        return ("data".into(), "application/octet-stream".into(), "binary".into());
    };
    let enc = text.mime_encoding;
    let plain = format!("{}{}", text.name, text.suffix);
    // Scripts.
    if let Some(rest) = data.strip_prefix(b"#!") {
        let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = String::from_utf8_lossy(line);
        let mut words = line.split_whitespace();
        let mut interp = words.next().map(|w| w.rsplit('/').next().unwrap_or(w)).unwrap_or("");
        if interp == "env" {
            interp = words.find(|w| !w.starts_with('-')).unwrap_or("");
        }
        let kind = match interp {
            "sh" | "dash" => Some(("POSIX shell script", "text/x-shellscript")),
            "bash" => Some(("Bourne-Again shell script", "text/x-shellscript")),
            "zsh" => Some(("Paul Falstad's zsh script", "text/x-shellscript")),
            "perl" => Some(("Perl script", "text/x-perl")),
            "ruby" => Some(("Ruby script", "text/x-ruby")),
            "awk" | "mawk" | "gawk" => Some(("awk or perl script", "text/x-awk")),
            i if i.starts_with("python") => Some(("Python script", "text/x-script.python")),
            "node" | "nodejs" => {
                return (
                    format!("Node.js script executable, {plain}"),
                    "application/javascript".into(),
                    enc.into(),
                )
            }
            _ => None,
        };
        return match kind {
            Some((desc, mime)) => (format!("{desc}, {plain} executable"), mime.into(), enc.into()),
            None => {
                let path = line.split_whitespace().next().unwrap_or("");
                (format!("a {path} script, {plain} executable"), "text/plain".into(), enc.into())
            }
        };
    }
    if is_json(data) {
        return ("JSON text data".into(), "application/json".into(), enc.into());
    }
    if is_ndjson(data) {
        return ("New Line Delimited JSON text data".into(), "application/x-ndjson".into(), enc.into());
    }
    let start = trim_ascii_start(data);
    let lower: Vec<u8> = start.iter().take(64).map(|b| b.to_ascii_lowercase()).collect();
    if lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html") || lower.starts_with(b"<head") {
        return (format!("HTML document, {plain}"), "text/html".into(), enc.into());
    }
    if data.starts_with(b"<?xml version=\"1.0\"") || data.starts_with(b"<?xml version='1.0'") {
        return (format!("XML 1.0 document, {plain}"), "text/xml".into(), enc.into());
    }
    if data.split(|&b| b == b'\n').any(|l| l.starts_with(b"#include")) {
        return (format!("C source, {plain}"), "text/x-c".into(), enc.into());
    }
    if is_csv(data) {
        return (format!("CSV text{}", text.suffix), "text/csv".into(), enc.into());
    }
    (plain, "text/plain".into(), enc.into())
}

fn trim_ascii_start(d: &[u8]) -> &[u8] {
    let i = d.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(d.len());
    &d[i..]
}

fn u16le(d: &[u8], at: usize) -> u64 {
    d.get(at..at + 2).map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u64)
}

fn u32le(d: &[u8], at: usize) -> u64 {
    d.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
}

fn u32be(d: &[u8], at: usize) -> u64 {
    d.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64)
}

/// Binary formats known by their first bytes.
fn magic(d: &[u8]) -> Option<(String, &'static str)> {
    if d.starts_with(b"\x89PNG\r\n\x1a\n") {
        let mut s = String::from("PNG image data");
        if d.get(12..16) == Some(b"IHDR") && d.len() >= 29 {
            let color = match d[25] {
                0 => " grayscale",
                2 => "/color RGB",
                3 => " colormap",
                4 => " gray+alpha",
                6 => "/color RGBA",
                _ => "",
            };
            let interlace = if d[28] == 1 { "interlaced" } else { "non-interlaced" };
            s.push_str(&format!(", {} x {}, {}-bit{color}, {interlace}", u32be(d, 16), u32be(d, 20), d[24]));
        }
        return Some((s, "image/png"));
    }
    if d.starts_with(b"GIF87a") || d.starts_with(b"GIF89a") {
        let version = String::from_utf8_lossy(&d[3..6]).into_owned();
        let mut s = format!("GIF image data, version {version}");
        if d.len() >= 10 {
            s.push_str(&format!(", {} x {}", u16le(d, 6), u16le(d, 8)));
        }
        return Some((s, "image/gif"));
    }
    if d.starts_with(b"\xff\xd8\xff") {
        return Some(("JPEG image data".into(), "image/jpeg"));
    }
    if d.starts_with(b"\x1f\x8b") {
        return Some((gzip(d), "application/gzip"));
    }
    if d.starts_with(b"BZh") && d.get(3).is_some_and(|c| (b'1'..=b'9').contains(c)) {
        let size = (d[3] - b'0') as u32 * 100;
        return Some((format!("bzip2 compressed data, block size = {size}k"), "application/x-bzip2"));
    }
    if d.starts_with(b"\xfd7zXZ\0") {
        return Some(("XZ compressed data".into(), "application/x-xz"));
    }
    if d.starts_with(b"PK\x03\x04") && d.len() >= 30 {
        let version = u16le(d, 4);
        let method = match u16le(d, 8) {
            0 => "store".to_string(),
            8 => "deflate".to_string(),
            12 => "bzip2".to_string(),
            14 => "lzma".to_string(),
            m => m.to_string(),
        };
        return Some((
            format!(
                "Zip archive data, at least v{}.{} to extract, compression method={method}",
                version / 10,
                version % 10
            ),
            "application/zip",
        ));
    }
    if d.get(257..265) == Some(b"ustar  \0") {
        return Some(("POSIX tar archive (GNU)".into(), "application/x-tar"));
    }
    if d.get(257..263) == Some(b"ustar\0") {
        return Some(("POSIX tar archive".into(), "application/x-tar"));
    }
    if let Some(rest) = d.strip_prefix(b"%PDF-") {
        let v: String =
            rest.iter().take_while(|b| b.is_ascii_digit() || **b == b'.').map(|&b| b as char).collect();
        return Some((format!("PDF document, version {v}"), "application/pdf"));
    }
    if d.starts_with(b"\x7fELF") {
        return Some(("ELF".into(), "application/x-executable"));
    }
    if d.starts_with(b"\0asm") && d.len() >= 8 {
        let mut s = format!("WebAssembly (wasm) binary module version {:#x}", u32le(d, 4));
        if u32le(d, 4) == 1 {
            s.push_str(" (MVP)");
        }
        return Some((s, "application/wasm"));
    }
    None
}

fn gzip(d: &[u8]) -> String {
    let mut s = String::from("gzip compressed data");
    if d.len() < 10 {
        return s;
    }
    let flags = d[3];
    if flags & 0x08 != 0 {
        // The original name follows the header (after an extra field).
        let mut at = 10;
        if flags & 0x04 != 0 {
            at += 2 + u16le(d, 10) as usize;
        }
        if let Some(rest) = d.get(at..) {
            let name: Vec<u8> = rest.iter().take_while(|&&b| b != 0).copied().collect();
            s.push_str(&format!(", was \"{}\"", String::from_utf8_lossy(&name)));
        }
    }
    let mtime = u32le(d, 4);
    if mtime != 0 {
        let (y, mo, day, h, mi, sec) = civil(mtime as i64);
        let days = (mtime / 86_400) as usize;
        let wd = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days % 7];
        let month = MONTHS[(mo as usize).saturating_sub(1).min(11)];
        s.push_str(&format!(", last modified: {wd} {month} {day:>2} {h:02}:{mi:02}:{sec:02} {y}"));
    }
    match d[8] {
        2 => s.push_str(", max compression"),
        4 => s.push_str(", max speed"),
        _ => {}
    }
    let os = match d[9] {
        0 => Some("FAT filesystem (MS-DOS, OS/2, NT)"),
        3 => Some("Unix"),
        7 => Some("Macintosh"),
        11 => Some("NTFS filesystem (NT)"),
        _ => None,
    };
    if let Some(os) = os {
        s.push_str(&format!(", from {os}"));
    }
    if d.len() >= 18 {
        s.push_str(&format!(", original size modulo 2^32 {}", u32le(d, d.len() - 4)));
    }
    s
}

struct TextInfo {
    /// `ASCII text`, `Unicode text, UTF-8 text`, …
    name: &'static str,
    /// `, with CRLF line terminators` and the like.
    suffix: String,
    mime_encoding: &'static str,
}

/// How file(1) sees a byte: plain text, ISO-8859 text, extended ASCII, or
/// not text at all.
fn text_class(b: u8) -> u8 {
    match b {
        7..=13 | 27 | 32..=126 => b'T',
        0x80..=0x9f => b'X',
        0xa0..=0xff => b'I',
        _ => b'F',
    }
}

fn text_info(d: &[u8]) -> Option<TextInfo> {
    let ascii = d.iter().all(|&b| text_class(b) == b'T');
    let (name, enc, body): (&'static str, &'static str, &[u8]) = if ascii {
        ("ASCII text", "us-ascii", d)
    } else if let Some(rest) = d.strip_prefix(b"\xef\xbb\xbf").filter(|r| utf8_text(r)) {
        ("Unicode text, UTF-8 (with BOM) text", "utf-8", rest)
    } else if utf8_text(d) {
        ("Unicode text, UTF-8 text", "utf-8", d)
    } else if d.iter().all(|&b| matches!(text_class(b), b'T' | b'I')) {
        ("ISO-8859 text", "iso-8859-1", d)
    } else if d.iter().all(|&b| text_class(b) != b'F') {
        ("Non-ISO extended-ASCII text", "unknown-8bit", d)
    } else {
        return None;
    };
    let mut suffix = String::new();
    let (mut crlf, mut cr, mut lf) = (0usize, 0usize, 0usize);
    let (mut longest, mut cur) = (0usize, 0usize);
    let mut escapes = false;
    let mut backspace = false;
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        match b {
            b'\r' if body.get(i + 1) == Some(&b'\n') => {
                crlf += 1;
                longest = longest.max(cur);
                cur = 0;
                i += 2;
                continue;
            }
            b'\r' => {
                cr += 1;
                longest = longest.max(cur);
                cur = 0;
            }
            b'\n' => {
                lf += 1;
                longest = longest.max(cur);
                cur = 0;
            }
            0x1b => {
                escapes = true;
                cur += 1;
            }
            0x08 => {
                backspace = true;
                cur += 1;
            }
            _ => cur += 1,
        }
        i += 1;
    }
    longest = longest.max(cur);
    if longest > 300 {
        suffix.push_str(&format!(", with very long lines ({longest})"));
    }
    if crlf == 0 && cr == 0 && lf == 0 {
        suffix.push_str(", with no line terminators");
    } else if crlf > 0 || cr > 0 {
        let mut kinds = Vec::new();
        if crlf > 0 {
            kinds.push("CRLF");
        }
        if cr > 0 {
            kinds.push("CR");
        }
        if lf > 0 {
            kinds.push("LF");
        }
        suffix.push_str(&format!(", with {} line terminators", kinds.join(", ")));
    }
    if escapes {
        suffix.push_str(", with escape sequences");
    }
    if backspace {
        suffix.push_str(", with overstriking");
    }
    Some(TextInfo { name, suffix, mime_encoding: enc })
}

/// Valid UTF-8 made of text characters (no NUL or other control bytes).
fn utf8_text(d: &[u8]) -> bool {
    match std::str::from_utf8(d) {
        Ok(s) => s.bytes().all(|b| b >= 0x80 || text_class(b) == b'T'),
        Err(_) => false,
    }
}

/// A JSON object or array, as file(1)'s lenient checker accepts it
/// (trailing commas allowed), with only whitespace around it.
fn is_json(d: &[u8]) -> bool {
    let mut p = JsonScan { d, i: 0, depth: 0 };
    p.ws();
    if !matches!(d.get(p.i), Some(b'{' | b'[')) {
        return false;
    }
    if !p.value() {
        return false;
    }
    p.ws();
    p.i == d.len()
}

/// Several lines, each a JSON object or array.
fn is_ndjson(d: &[u8]) -> bool {
    let lines: Vec<&[u8]> = d.split(|&b| b == b'\n').filter(|l| !trim_ascii_start(l).is_empty()).collect();
    lines.len() > 1 && lines.iter().all(|l| is_json(l))
}

struct JsonScan<'a> {
    d: &'a [u8],
    i: usize,
    depth: usize,
}

impl JsonScan<'_> {
    fn ws(&mut self) {
        while self.d.get(self.i).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> bool {
        self.ws();
        match self.d.get(self.i) {
            Some(b'{') => self.container(b'}', true),
            Some(b'[') => self.container(b']', false),
            Some(b'"') => self.string(),
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }

    fn container(&mut self, close: u8, object: bool) -> bool {
        self.depth += 1;
        if self.depth > 500 {
            return false;
        }
        self.i += 1;
        loop {
            self.ws();
            if self.d.get(self.i) == Some(&close) {
                self.i += 1;
                self.depth -= 1;
                return true;
            }
            if object {
                if self.d.get(self.i) != Some(&b'"') || !self.string() {
                    return false;
                }
                self.ws();
                if self.d.get(self.i) != Some(&b':') {
                    return false;
                }
                self.i += 1;
            }
            if !self.value() {
                return false;
            }
            self.ws();
            match self.d.get(self.i) {
                Some(b',') => self.i += 1,
                Some(c) if *c == close => {}
                _ => return false,
            }
        }
    }

    fn string(&mut self) -> bool {
        self.i += 1;
        while let Some(&b) = self.d.get(self.i) {
            self.i += 1;
            match b {
                b'"' => return true,
                b'\\' => self.i += 1,
                0..=0x1f => return false,
                _ => {}
            }
        }
        false
    }

    fn word(&mut self, w: &[u8]) -> bool {
        if self.d.get(self.i..self.i + w.len()) == Some(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> bool {
        let start = self.i;
        while self.d.get(self.i).is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
        {
            self.i += 1;
        }
        self.i > start
    }
}

/// At least three lines with the same number (two or more) of
/// comma-separated fields, quotes respected.
fn is_csv(d: &[u8]) -> bool {
    let mut fields_per_line = Vec::new();
    let mut fields = 1usize;
    let mut in_quote = false;
    for &b in d {
        match b {
            b'"' => in_quote = !in_quote,
            b',' if !in_quote => fields += 1,
            b'\n' if !in_quote => {
                fields_per_line.push(fields);
                fields = 1;
            }
            _ => {}
        }
    }
    fields_per_line.len() >= 3
        && fields_per_line[0] >= 2
        && fields_per_line.iter().all(|&f| f == fields_per_line[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(d: &[u8]) -> String {
        classify(d).0
    }

    #[test]
    fn texts() {
        assert_eq!(desc(b"hello\n"), "ASCII text");
        assert_eq!(desc(b"no newline"), "ASCII text, with no line terminators");
        assert_eq!(desc(b"a\r\nb\r\n"), "ASCII text, with CRLF line terminators");
        assert_eq!(desc(b"a\r\nb\n"), "ASCII text, with CRLF, LF line terminators");
        assert_eq!(desc("h\u{e9}llo\n".as_bytes()), "Unicode text, UTF-8 text");
        assert_eq!(desc(b"caf\xe9\n"), "ISO-8859 text");
        assert_eq!(desc(b"\x00\x01\x02\xff"), "data");
        assert_eq!(
            desc(b"\x1b[1mhello\r\n"),
            "ASCII text, with CRLF line terminators, with escape sequences"
        );
    }

    #[test]
    fn structured() {
        assert_eq!(desc(b"{\"a\": 1}\n"), "JSON text data");
        assert_eq!(desc(b"[1,2]\n"), "JSON text data");
        assert_eq!(desc(b"1\n"), "ASCII text");
        assert_eq!(desc(b"{\"a\":1}\n{\"a\":2}\n"), "New Line Delimited JSON text data");
        assert_eq!(desc(b"a,b,c\n1,2,3\n4,5,6\n"), "CSV text");
        assert_eq!(desc(b"a,b\nc,d\n"), "ASCII text");
        assert_eq!(desc(b"#!/bin/sh\necho hi\n"), "POSIX shell script, ASCII text executable");
        assert_eq!(desc(b"#!/usr/bin/env python3\nprint(1)\n"), "Python script, ASCII text executable");
    }

    #[test]
    fn binaries() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
        assert_eq!(desc(png), "PNG image data, 1 x 1, 8-bit/color RGBA, non-interlaced");
        let gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\x00\x00\x83\x16\xdc\x8c\x01\x00\x00\x00";
        assert_eq!(desc(gz), "gzip compressed data, from Unix, original size modulo 2^32 1");
    }
}
