//! Prompt strings (`${x@P}`): bash's backslash escapes, then parameter
//! expansion, command substitution and arithmetic as in a here-document.
//! Nothing is interactive: `\j` is 0 jobs, `\l` is `tty`, `\!` is history
//! number 1 and `\#` command number 0, as a non-interactive bash prints;
//! `\$` is `$` (the sandbox's user is not root).

use crate::builtins::common::strftime::strftime;
use crate::expand::ExpandError;
use crate::interp::Interp;

/// Escapes what the expansion after decoding would otherwise interpret.
fn literal(out: &mut String, text: &str) {
    for c in text.chars() {
        if matches!(c, '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Expands `text` as bash expands a prompt.
pub(crate) fn expand(interp: &mut Interp, text: &str) -> Result<String, ExpandError> {
    let decoded = decode(interp, text);
    interp.expand_heredoc(&decoded)
}

fn decode(interp: &mut Interp, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            out.push('\\');
            break;
        };
        i += 1;
        match e {
            'a' => out.push('\u{7}'),
            'e' => out.push('\u{1b}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            '[' | ']' => {}
            '\\' => out.push('\\'),
            '$' => out.push_str("\\$"),
            's' => {
                let name = interp.name.rsplit('/').next().unwrap_or_default().to_string();
                literal(&mut out, &name);
            }
            'v' => out.push_str("5.2"),
            'V' => out.push_str("5.2.15"),
            'j' | '#' => out.push('0'),
            '!' => out.push('1'),
            'l' => out.push_str("tty"),
            'u' => {
                let user = interp.state.get("USER").unwrap_or_default().to_string();
                literal(&mut out, &user);
            }
            'h' | 'H' => {
                let host = interp.state.get("HOSTNAME").unwrap_or("localhost").to_string();
                let host =
                    if e == 'h' { host.split('.').next().unwrap_or_default().to_string() } else { host };
                literal(&mut out, &host);
            }
            'w' | 'W' => {
                let cwd = interp.state.get("PWD").map_or_else(|| interp.sys.cwd(), str::to_string);
                let home = interp.state.get("HOME").unwrap_or_default().to_string();
                let shown = if e == 'W' && cwd != home {
                    match cwd.rfind('/') {
                        Some(0) | None => cwd.clone(),
                        Some(k) => cwd[k + 1..].to_string(),
                    }
                } else if !home.is_empty()
                    && (cwd == home || cwd.strip_prefix(home.as_str()).is_some_and(|r| r.starts_with('/')))
                {
                    format!("~{}", &cwd[home.len()..])
                } else {
                    cwd
                };
                literal(&mut out, &shown);
            }
            'd' | 't' | 'T' | '@' | 'A' => {
                let format = match e {
                    'd' => "%a %b %d",
                    't' => "%H:%M:%S",
                    'T' => "%I:%M:%S",
                    '@' => "%I:%M %p",
                    _ => "%H:%M",
                };
                let s = i64::try_from(interp.sys.now_ms() / 1000).unwrap_or(0);
                literal(&mut out, &strftime(format, s, 0));
            }
            'D' if chars.get(i) == Some(&'{') => match chars[i + 1..].iter().position(|&c| c == '}') {
                Some(len) => {
                    let format: String = chars[i + 1..i + 1 + len].iter().collect();
                    i += len + 2;
                    let format = if format.is_empty() { "%X".to_string() } else { format };
                    let s = i64::try_from(interp.sys.now_ms() / 1000).unwrap_or(0);
                    literal(&mut out, &strftime(&format, s, 0));
                }
                None => out.push_str("\\D"),
            },
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                let mut digits = 1;
                while digits < 3 {
                    match chars.get(i).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            i += 1;
                            digits += 1;
                        }
                        None => break,
                    }
                }
                let byte = char::from((value & 0xff) as u8);
                if matches!(byte, '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(byte);
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}
