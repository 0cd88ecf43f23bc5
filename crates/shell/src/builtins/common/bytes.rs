//! Byte search, eight bytes at a time (wasm has no SIMD): what `grep`,
//! `sed`, `cut`, `sort` and `uniq` scan input with (lines are split in
//! `lines`).

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// `needle` in every byte of a word.
#[inline]
fn splat(needle: u8) -> u64 {
    LO.wrapping_mul(u64::from(needle))
}

#[inline]
fn word(chunk: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(chunk);
    u64::from_le_bytes(b)
}

/// The high bit of each byte of `w ^ rep` that is zero, plus possibly false
/// positives above the first true one (borrows): enough to find the first.
#[inline]
fn zero_bytes(w: u64, rep: u64) -> u64 {
    let x = w ^ rep;
    x.wrapping_sub(LO) & !x & HI
}

/// The first `needle` in `hay`.
pub(crate) fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let rep = splat(needle);
    let mut i = 0;
    while i + 8 <= hay.len() {
        let found = zero_bytes(word(&hay[i..i + 8]), rep);
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    hay[i..].iter().position(|&b| b == needle).map(|p| p + i)
}

/// The last `needle` in `hay`.
pub(crate) fn memrchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let rep = splat(needle);
    let mut end = hay.len();
    while end >= 8 {
        if zero_bytes(word(&hay[end - 8..end]), rep) != 0 {
            break;
        }
        end -= 8;
    }
    hay[..end].iter().rposition(|&b| b == needle)
}

/// How many times `needle` occurs in `hay`.
pub(crate) fn count_byte(needle: u8, hay: &[u8]) -> usize {
    let rep = splat(needle);
    let mut n = 0;
    let mut chunks = hay.chunks_exact(8);
    for c in &mut chunks {
        let x = word(c) ^ rep;
        // Exact per-byte zero test (no false positives from borrows).
        let t = ((x & !HI).wrapping_add(!HI) | x) & HI;
        n += 8 - t.count_ones() as usize;
    }
    n + chunks.remainder().iter().filter(|&&b| b == needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search() {
        let hay = b"abcdefghijklmnopq,rs\n";
        assert_eq!(memchr(b',', hay), Some(17));
        assert_eq!(memchr(b'a', hay), Some(0));
        assert_eq!(memchr(b'z', hay), None);
        assert_eq!(memchr(0x80, b"\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x80"), Some(8));
        for len in 0..40 {
            for at in 0..=len {
                let mut v = vec![b'x'; len];
                if at < len {
                    v[at] = b'\n';
                }
                let want = if at < len { Some(at) } else { None };
                assert_eq!(memchr(b'\n', &v), want);
                assert_eq!(memrchr(b'\n', &v), want);
                assert_eq!(count_byte(b'\n', &v), usize::from(at < len));
            }
        }
        let v: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        assert_eq!(count_byte(b'\n', &v), v.iter().filter(|&&b| b == b'\n').count());
        assert_eq!(memrchr(b'\n', &v), v.iter().rposition(|&b| b == b'\n'));
    }
}
