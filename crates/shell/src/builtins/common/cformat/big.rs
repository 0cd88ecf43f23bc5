//! Unsigned big integers, for exact decimal conversions (and `expr`).

use std::cmp::Ordering;

/// Little-endian 32-bit limbs, no trailing zero limbs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Big {
    limbs: Vec<u32>,
}

impl Big {
    pub(crate) fn from_u64(v: u64) -> Big {
        let mut b = Big { limbs: vec![v as u32, (v >> 32) as u32] };
        b.trim();
        b
    }

    /// From decimal digit values (0..=9), most significant first.
    pub(crate) fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big::default();
        for chunk in digits.chunks(9) {
            let mut v = 0u32;
            for &d in chunk {
                v = v * 10 + u32::from(d);
            }
            b.mul_small(10u32.pow(chunk.len() as u32));
            b.add_small(v);
        }
        b
    }

    /// Parses ASCII decimal digits (all must be digits).
    pub(crate) fn parse(text: &[u8]) -> Option<Big> {
        if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let digits: Vec<u8> = text.iter().map(|c| c - b'0').collect();
        Some(Big::from_digits(&digits))
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    pub(crate) fn bits(&self) -> usize {
        match self.limbs.last() {
            None => 0,
            Some(&top) => self.limbs.len() * 32 - top.leading_zeros() as usize,
        }
    }

    pub(crate) fn bit(&self, i: usize) -> bool {
        self.limbs.get(i / 32).is_some_and(|l| (l >> (i % 32)) & 1 == 1)
    }

    /// Whether any bit below position `i` is set.
    pub(crate) fn any_bits_below(&self, i: usize) -> bool {
        let full = i / 32;
        if self.limbs.iter().take(full).any(|&l| l != 0) {
            return true;
        }
        let rem = i % 32;
        rem > 0 && self.limbs.get(full).is_some_and(|l| l & ((1u32 << rem) - 1) != 0)
    }

    pub(crate) fn low_u64(&self) -> u64 {
        let lo = u64::from(self.limbs.first().copied().unwrap_or(0));
        let hi = u64::from(self.limbs.get(1).copied().unwrap_or(0));
        lo | (hi << 32)
    }

    pub(crate) fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.limbs {
            let v = u64::from(*l) * u64::from(m) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
        self.trim();
    }

    pub(crate) fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for l in &mut self.limbs {
            if carry == 0 {
                break;
            }
            let v = u64::from(*l) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    pub(crate) fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        self.mul_small(10u32.pow(n));
    }

    pub(crate) fn mul_pow5(&mut self, mut n: u32) {
        while n >= 13 {
            self.mul_small(1_220_703_125);
            n -= 13;
        }
        self.mul_small(5u32.pow(n));
    }

    pub(crate) fn shl(&mut self, n: usize) {
        if self.is_zero() {
            return;
        }
        let (words, bits) = (n / 32, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for l in &mut self.limbs {
                let v = (*l << bits) | carry;
                carry = *l >> (32 - bits);
                *l = v;
            }
            if carry > 0 {
                self.limbs.push(carry);
            }
        }
        if words > 0 {
            let mut v = vec![0u32; words];
            v.extend_from_slice(&self.limbs);
            self.limbs = v;
        }
    }

    pub(crate) fn shr(&mut self, n: usize) {
        let (words, bits) = (n / 32, n % 32);
        if words >= self.limbs.len() {
            self.limbs.clear();
            return;
        }
        self.limbs.drain(..words);
        if bits > 0 {
            let len = self.limbs.len();
            for i in 0..len {
                let hi = self.limbs.get(i + 1).copied().unwrap_or(0);
                self.limbs[i] = (self.limbs[i] >> bits) | (hi << (32 - bits));
            }
        }
        self.trim();
    }

    pub(crate) fn add(&self, other: &Big) -> Big {
        let n = self.limbs.len().max(other.limbs.len());
        let mut limbs = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let v = u64::from(self.limbs.get(i).copied().unwrap_or(0))
                + u64::from(other.limbs.get(i).copied().unwrap_or(0))
                + carry;
            limbs.push(v as u32);
            carry = v >> 32;
        }
        if carry > 0 {
            limbs.push(carry as u32);
        }
        Big { limbs }
    }

    /// `self - other`, for `self >= other`.
    pub(crate) fn sub(&self, other: &Big) -> Big {
        let mut limbs = self.limbs.clone();
        let mut borrow = 0i64;
        for (i, l) in limbs.iter_mut().enumerate() {
            let v = i64::from(*l) - i64::from(other.limbs.get(i).copied().unwrap_or(0)) - borrow;
            if v < 0 {
                *l = (v + (1i64 << 32)) as u32;
                borrow = 1;
            } else {
                *l = v as u32;
                borrow = 0;
            }
        }
        let mut b = Big { limbs };
        b.trim();
        b
    }

    pub(crate) fn mul(&self, other: &Big) -> Big {
        if self.is_zero() || other.is_zero() {
            return Big::default();
        }
        let mut limbs = vec![0u32; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.limbs.iter().enumerate() {
                let v = u64::from(limbs[i + j]) + u64::from(a) * u64::from(b) + carry;
                limbs[i + j] = v as u32;
                carry = v >> 32;
            }
            let mut k = i + other.limbs.len();
            while carry > 0 && k < limbs.len() {
                let v = u64::from(limbs[k]) + carry;
                limbs[k] = v as u32;
                carry = v >> 32;
                k += 1;
            }
        }
        let mut b = Big { limbs };
        b.trim();
        b
    }

    /// (quotient, remainder); `d` must not be zero.
    pub(crate) fn divmod(&self, d: &Big) -> (Big, Big) {
        if d.is_zero() || self.cmp(d) == Ordering::Less {
            return (Big::default(), self.clone());
        }
        let k = self.bits() - d.bits();
        let mut shifted = d.clone();
        shifted.shl(k);
        let mut r = self.clone();
        let mut q = Big { limbs: vec![0; k / 32 + 1] };
        for i in (0..=k).rev() {
            if r.cmp(&shifted) != Ordering::Less {
                r = r.sub(&shifted);
                q.limbs[i / 32] |= 1 << (i % 32);
            }
            shifted.shr(1);
        }
        q.trim();
        (q, r)
    }

    fn divmod_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for l in self.limbs.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*l);
            *l = (v / u64::from(d)) as u32;
            rem = v % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    /// Decimal digit values, most significant first (`[0]` for zero).
    pub(crate) fn to_digits(&self) -> Vec<u8> {
        if self.is_zero() {
            return vec![0];
        }
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.divmod_small(1_000_000_000));
        }
        let mut out = Vec::with_capacity(chunks.len() * 9);
        for (i, chunk) in chunks.iter().rev().enumerate() {
            let s = if i == 0 { chunk.to_string() } else { format!("{chunk:09}") };
            out.extend(s.bytes().map(|c| c - b'0'));
        }
        out
    }

    pub(crate) fn to_decimal(&self) -> String {
        self.to_digits().iter().map(|d| char::from(b'0' + d)).collect()
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division() {
        let a = Big::parse(b"123456789012345678901234567890").unwrap_or_default();
        let b = Big::parse(b"987654321").unwrap_or_default();
        let (q, r) = a.divmod(&b);
        assert_eq!(q.to_decimal(), "124999998873437499901");
        assert_eq!(r.to_decimal(), "574845669");
    }
}
