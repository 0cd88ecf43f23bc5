//! Comparing lines by the keys and flags, and sorting them.

use super::*;

/// Everything the comparison needs, computed once.
pub(super) struct Sorter<'d> {
    pub(super) lines: Vec<&'d [u8]>,
    pub(super) keys: Vec<Key>,
    /// `spans[line * keys.len() + k]`: the key's byte range in the line.
    pub(super) spans: Vec<(u32, u32)>,
    /// Precomputed `-g` values, same indexing (empty when no `-g` key).
    pub(super) generals: Vec<General>,
    /// Precomputed number forms (and `-h` unit orders) for `-n`/`-h` keys,
    /// same indexing (empty when there are none).
    pub(super) nums: Vec<(NumForm, i32)>,
    pub(super) reverse: bool,
    /// No last-resort comparison (`-s` or `-u`).
    pub(super) no_last_resort: bool,
}

impl<'d> Sorter<'d> {
    pub(super) fn new(
        lines: Vec<&'d [u8]>,
        keys: Vec<Key>,
        tab: Option<u8>,
        reverse: bool,
        no_last_resort: bool,
    ) -> Self {
        let nk = keys.len();
        let mut spans = Vec::with_capacity(lines.len() * nk);
        let any_general = keys.iter().any(|k| k.flags.mode() == Mode::General);
        let mut generals = Vec::new();
        let any_num = keys.iter().any(|k| matches!(k.flags.mode(), Mode::Numeric | Mode::Human));
        let mut nums = Vec::new();
        for line in &lines {
            for key in &keys {
                let beg = begfield(line, key, tab);
                let lim = limfield(line, key, tab).max(beg);
                spans.push((beg as u32, lim as u32));
                if any_num {
                    let text = &line[beg..lim];
                    nums.push(match key.flags.mode() {
                        Mode::Numeric => (num_form(text), 0),
                        Mode::Human => (num_form(text), unit_order(text)),
                        _ => (NumForm::default(), 0),
                    });
                }
                if any_general {
                    generals.push(if key.flags.mode() == Mode::General {
                        general_value(&line[beg..lim])
                    } else {
                        General::Error
                    });
                }
            }
        }
        Self { lines, keys, spans, generals, nums, reverse, no_last_resort }
    }

    pub(super) fn keycompare(&self, a: usize, b: usize) -> Ordering {
        let nk = self.keys.len();
        let (la, lb) = (self.lines[a], self.lines[b]);
        for (k, key) in self.keys.iter().enumerate() {
            let (sa, ea) = self.spans[a * nk + k];
            let (sb, eb) = self.spans[b * nk + k];
            let ta = &la[sa as usize..ea as usize];
            let tb = &lb[sb as usize..eb as usize];
            let f = &key.flags;
            let diff = match f.mode() {
                Mode::Numeric => numcompare_forms(ta, self.nums[a * nk + k].0, tb, self.nums[b * nk + k].0),
                Mode::General => general_compare(self.generals[a * nk + k], self.generals[b * nk + k]),
                Mode::Human => {
                    let (fa, ua) = self.nums[a * nk + k];
                    let (fb, ub) = self.nums[b * nk + k];
                    ua.cmp(&ub).then_with(|| numcompare_forms(ta, fa, tb, fb))
                }
                Mode::Month => month(ta).cmp(&month(tb)),
                Mode::Version => filevercmp(ta, tb),
                Mode::Text => {
                    if f.fold || f.ignore != Ignore::None {
                        compare_translated(ta, tb, f.fold, f.ignore)
                    } else {
                        ta.cmp(tb)
                    }
                }
            };
            if diff != Ordering::Equal {
                return if f.reverse { diff.reverse() } else { diff };
            }
        }
        Ordering::Equal
    }

    pub(super) fn compare(&self, a: usize, b: usize) -> Ordering {
        if !self.keys.is_empty() {
            let d = self.keycompare(a, b);
            if d != Ordering::Equal || self.no_last_resort {
                return d;
            }
        }
        let d = self.lines[a].cmp(self.lines[b]);
        if self.reverse {
            d.reverse()
        } else {
            d
        }
    }
}

/// Splits inputs into records (without their delimiter).
pub(super) fn split_records<'d>(data: &'d [u8], delim: u8, into: &mut Vec<&'d [u8]>) {
    into.extend(records(data, delim));
}

/// Length of the prefix all `items` share.
pub(super) fn common_prefix<'a>(mut items: impl Iterator<Item = &'a [u8]>) -> usize {
    let Some(first) = items.next() else { return 0 };
    let mut lcp = first.len();
    for item in items {
        let limit = lcp.min(item.len());
        let mut i = 0;
        while i < limit && item[i] == first[i] {
            i += 1;
        }
        lcp = i;
        if lcp == 0 {
            break;
        }
    }
    lcp
}

/// Bytes `at..at + 8` of `s` as a big-endian number, zero padded: if two
/// of these differ, the slices (which agree before `at`) compare the same way.
pub(super) fn prefix8(s: &[u8], at: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..8 {
        v = (v << 8) | u64::from(s.get(at + k).copied().unwrap_or(0));
    }
    v
}

/// The integer part of a `-n` key, truncated toward zero, when it fits:
/// ordering by it is consistent with `numcompare`.
pub(super) fn int_part(s: &[u8]) -> Option<i64> {
    let (neg, int, _) = canonical(s);
    if int.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in int {
        v = v * 10 + i64::from(d - b'0');
    }
    Some(if neg { -v } else { v })
}

/// The sorted order of the lines' indices. Comparisons start with a cheap
/// precomputed value (an 8-byte prefix, or a number's integer part) and
/// only fall back to the full comparison when those are equal.
pub(super) fn sort_order(s: &Sorter) -> Vec<u32> {
    let n = s.lines.len();
    if s.keys.is_empty() {
        // Whole-line byte order: equal lines are identical bytes, so an
        // unstable sort prints the same thing.
        let lcp = common_prefix(s.lines.iter().copied());
        let mut v: Vec<(u64, u32)> =
            s.lines.iter().enumerate().map(|(i, l)| (prefix8(l, lcp), i as u32)).collect();
        let lines = &s.lines;
        let rev = s.reverse;
        v.sort_unstable_by(|a, b| {
            let o = a.0.cmp(&b.0).then_with(|| lines[a.1 as usize][lcp..].cmp(&lines[b.1 as usize][lcp..]));
            if rev {
                o.reverse()
            } else {
                o
            }
        });
        return v.into_iter().map(|(_, i)| i).collect();
    }
    let nk = s.keys.len();
    let key = s.keys[0];
    let text_of = |i: usize| {
        let (a, b) = s.spans[i * nk];
        &s.lines[i][a as usize..b as usize]
    };
    let flags = key.flags;
    let mut order: Vec<u32> = (0..n as u32).collect();
    if flags.mode() == Mode::Text && !flags.fold && flags.ignore == Ignore::None {
        let lcp = common_prefix((0..n).map(text_of));
        let pre: Vec<u64> = (0..n).map(|i| prefix8(text_of(i), lcp)).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (pre[a as usize], pre[b as usize]);
            if pa != pb {
                let o = pa.cmp(&pb);
                return if flags.reverse { o.reverse() } else { o };
            }
            s.compare(a as usize, b as usize)
        });
    } else if flags.mode() == Mode::Numeric {
        let ints: Vec<Option<i64>> = (0..n).map(|i| int_part(text_of(i))).collect();
        order.sort_by(|&a, &b| {
            if let (Some(x), Some(y)) = (ints[a as usize], ints[b as usize]) {
                if x != y {
                    let o = x.cmp(&y);
                    return if flags.reverse { o.reverse() } else { o };
                }
            }
            s.compare(a as usize, b as usize)
        });
    } else {
        order.sort_by(|&a, &b| s.compare(a as usize, b as usize));
    }
    order
}
