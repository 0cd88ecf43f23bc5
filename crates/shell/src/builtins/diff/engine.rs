//! Which lines changed between two sequences of line classes, choosing
//! among equally short edit scripts the way GNU diff does: common ends are
//! set aside (keeping `horizon` lines of context), lines that cannot match
//! are discarded up front, Myers' middle-snake search splits the rest, and
//! runs of changes are slid to line up with each other.
//!
//! Work is bounded: past a cost limit a split point is estimated rather
//! than searched for, and once the overall budget is spent the remaining
//! regions are reported as changed wholesale.

/// Diagonal steps allowed for one comparison before giving up on
/// minimality altogether.
const BUDGET: u64 = 100_000_000;

/// Marks changed lines; `a` and `b` are dense class numbers below
/// `classes`.
pub fn compare(a: &[u32], b: &[u32], classes: usize, horizon: usize) -> (Vec<bool>, Vec<bool>) {
    let (n, m) = (a.len(), b.len());
    let mut ca = vec![false; n];
    let mut cb = vec![false; m];
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = n.min(m) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(max_suffix).take_while(|(x, y)| x == y).count();
    let lo = prefix.saturating_sub(horizon);
    let hi_a = (n - suffix + horizon).min(n);
    let hi_b = (m - suffix + horizon).min(m);
    let (ra, rb) = (&a[lo..hi_a], &b[lo..hi_b]);

    // discard lines that cannot match (or match too much)
    let discards = discard_confusing(ra, rb, classes);
    let (mut ua, mut ia) = (Vec::new(), Vec::new());
    let (mut ub, mut ib) = (Vec::new(), Vec::new());
    let mut cra = vec![false; ra.len()];
    let mut crb = vec![false; rb.len()];
    for (k, &x) in ra.iter().enumerate() {
        if discards.0[k] {
            cra[k] = true;
        } else {
            ua.push(x);
            ia.push(k);
        }
    }
    for (k, &y) in rb.iter().enumerate() {
        if discards.1[k] {
            crb[k] = true;
        } else {
            ub.push(y);
            ib.push(k);
        }
    }
    let (xa, xb) = Search::new(&ua, &ub).run();
    for (k, &c) in xa.iter().enumerate() {
        if c {
            cra[ia[k]] = true;
        }
    }
    for (k, &c) in xb.iter().enumerate() {
        if c {
            crb[ib[k]] = true;
        }
    }
    shift_boundaries(ra, &mut cra, &crb);
    shift_boundaries(rb, &mut crb, &cra);
    ca[lo..hi_a].copy_from_slice(&cra);
    cb[lo..hi_b].copy_from_slice(&crb);
    (ca, cb)
}

/// Lines of one side that match nothing on the other side are certainly
/// changes; lines matching very many lines are dropped too when they sit
/// inside a run of such certain changes.
fn discard_confusing(a: &[u32], b: &[u32], classes: usize) -> (Vec<bool>, Vec<bool>) {
    let mut count = [vec![0usize; classes], vec![0usize; classes]];
    for &x in a {
        count[0][x as usize] += 1;
    }
    for &y in b {
        count[1][y as usize] += 1;
    }
    let sides = [a, b];
    let mut out = [Vec::new(), Vec::new()];
    for f in 0..2 {
        let lines = sides[f];
        let other = &count[1 - f];
        let end = lines.len();
        // roughly 5 * sqrt(lines / 64)
        let mut many = 5usize;
        let mut t = end / 64;
        loop {
            t >>= 2;
            if t == 0 {
                break;
            }
            many *= 2;
        }
        // 0: keep, 1: discard, 2: discard provisionally
        let mut d: Vec<u8> = lines
            .iter()
            .map(|&x| match other[x as usize] {
                0 => 1,
                k if k > many => 2,
                _ => 0,
            })
            .collect();
        let mut i = 0;
        while i < end {
            if d[i] == 2 {
                d[i] = 0;
            } else if d[i] != 0 {
                // a run of discardable lines starting with a certain one
                let mut j = i;
                let mut provisional = 0;
                while j < end && d[j] != 0 {
                    if d[j] == 2 {
                        provisional += 1;
                    }
                    j += 1;
                }
                while j > i && d[j - 1] == 2 {
                    j -= 1;
                    d[j] = 0;
                    provisional -= 1;
                }
                let length = j - i;
                if provisional * 4 > length {
                    for x in &mut d[i..j] {
                        if *x == 2 {
                            *x = 0;
                        }
                    }
                } else {
                    let mut minimum = 1usize;
                    let mut t = length >> 2;
                    loop {
                        t >>= 2;
                        if t == 0 {
                            break;
                        }
                        minimum <<= 1;
                    }
                    minimum += 1;
                    // long subruns of provisional lines stay
                    let mut k = 0usize;
                    let mut consec = 0usize;
                    while k < length {
                        if d[i + k] != 2 {
                            consec = 0;
                        } else {
                            consec += 1;
                            if consec == minimum {
                                k -= consec;
                            } else if consec > minimum {
                                d[i + k] = 0;
                            }
                        }
                        k += 1;
                    }
                    // near the ends of the run, keep provisional lines
                    // until three certain ones in a row
                    let mut consec = 0;
                    for k in 0..length {
                        if k >= 8 && d[i + k] == 1 {
                            break;
                        }
                        match d[i + k] {
                            2 => {
                                consec = 0;
                                d[i + k] = 0;
                            }
                            0 => consec = 0,
                            _ => consec += 1,
                        }
                        if consec == 3 {
                            break;
                        }
                    }
                    let last = i + length - 1;
                    let mut consec = 0;
                    for k in 0..length {
                        if k >= 8 && d[last - k] == 1 {
                            break;
                        }
                        match d[last - k] {
                            2 => {
                                consec = 0;
                                d[last - k] = 0;
                            }
                            0 => consec = 0,
                            _ => consec += 1,
                        }
                        if consec == 3 {
                            break;
                        }
                    }
                    i = last;
                }
            }
            i += 1;
        }
        out[f] = d.into_iter().map(|x| x != 0).collect();
    }
    let [da, db] = out;
    (da, db)
}

/// The middle-snake search over two sequences.
struct Search<'s> {
    a: &'s [u32],
    b: &'s [u32],
    fd: Vec<isize>,
    bd: Vec<isize>,
    /// Index of diagonal 0 in `fd` and `bd`.
    zero: isize,
    too_expensive: isize,
    budget: u64,
    ca: Vec<bool>,
    cb: Vec<bool>,
}

impl<'s> Search<'s> {
    fn new(a: &'s [u32], b: &'s [u32]) -> Self {
        let size = a.len() + b.len() + 3;
        let mut too_expensive: isize = 1;
        let mut diags = size;
        while diags != 0 {
            diags >>= 2;
            too_expensive <<= 1;
        }
        Self {
            a,
            b,
            fd: vec![0; size],
            bd: vec![0; size],
            zero: b.len() as isize + 1,
            too_expensive: too_expensive.max(4096),
            budget: BUDGET,
            ca: vec![false; a.len()],
            cb: vec![false; b.len()],
        }
    }

    fn run(mut self) -> (Vec<bool>, Vec<bool>) {
        let mut stack = vec![(0usize, self.a.len(), 0usize, self.b.len(), false)];
        while let Some((mut xoff, mut xlim, mut yoff, mut ylim, minimal)) = stack.pop() {
            while xoff < xlim && yoff < ylim && self.a[xoff] == self.b[yoff] {
                xoff += 1;
                yoff += 1;
            }
            while xoff < xlim && yoff < ylim && self.a[xlim - 1] == self.b[ylim - 1] {
                xlim -= 1;
                ylim -= 1;
            }
            if xoff == xlim || yoff == ylim || self.budget == 0 {
                self.ca[xoff..xlim].iter_mut().for_each(|c| *c = true);
                self.cb[yoff..ylim].iter_mut().for_each(|c| *c = true);
                continue;
            }
            let (xmid, ymid, lo_min, hi_min) = self.diag(xoff, xlim, yoff, ylim, minimal);
            let (xmid, ymid) = (xmid.clamp(xoff, xlim), ymid.clamp(yoff, ylim));
            if (xmid, ymid) == (xoff, yoff) || (xmid, ymid) == (xlim, ylim) {
                // no progress possible: report the region as changed
                self.ca[xoff..xlim].iter_mut().for_each(|c| *c = true);
                self.cb[yoff..ylim].iter_mut().for_each(|c| *c = true);
                continue;
            }
            stack.push((xmid, xlim, ymid, ylim, hi_min));
            stack.push((xoff, xmid, yoff, ymid, lo_min));
        }
        (self.ca, self.cb)
    }

    fn f(&self, d: isize) -> isize {
        self.fd[(d + self.zero) as usize]
    }

    fn set_f(&mut self, d: isize, x: isize) {
        let z = self.zero;
        self.fd[(d + z) as usize] = x;
    }

    fn bk(&self, d: isize) -> isize {
        self.bd[(d + self.zero) as usize]
    }

    fn set_b(&mut self, d: isize, x: isize) {
        let z = self.zero;
        self.bd[(d + z) as usize] = x;
    }

    /// A point through which a shortest edit script passes (or, when that
    /// costs too much, a good guess), and whether each half is known to
    /// be minimal.
    fn diag(
        &mut self,
        xoff: usize,
        xlim: usize,
        yoff: usize,
        ylim: usize,
        minimal: bool,
    ) -> (usize, usize, bool, bool) {
        let (xoff, xlim, yoff, ylim) = (xoff as isize, xlim as isize, yoff as isize, ylim as isize);
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        let (a, b) = (self.a, self.b);
        let eq = |x: isize, y: isize| a[x as usize] == b[y as usize];
        self.set_f(fmid, xoff);
        self.set_b(bmid, xlim);
        let mut c: isize = 1;
        loop {
            // extend the forward search by one edit on each diagonal
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (tlo, thi) = (self.f(d - 1), self.f(d + 1));
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let mut x = x0;
                let mut y = x0 - d;
                while x < xlim && y < ylim && eq(x, y) {
                    x += 1;
                    y += 1;
                }
                self.budget = self.budget.saturating_sub(1 + (x - x0) as u64);
                self.set_f(d, x);
                if odd && bmin <= d && d <= bmax && self.bk(d) <= x {
                    return (x as usize, y as usize, true, true);
                }
                d -= 2;
            }
            // and the backward search
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (tlo, thi) = (self.bk(d - 1), self.bk(d + 1));
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let mut x = x0;
                let mut y = x0 - d;
                while xoff < x && yoff < y && eq(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                self.budget = self.budget.saturating_sub(1 + (x0 - x) as u64);
                self.set_b(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.f(d) {
                    return (x as usize, y as usize, true, true);
                }
                d -= 2;
            }
            if !minimal && (c >= self.too_expensive || self.budget == 0) {
                // too costly: take the furthest-reaching point of either search
                let mut fxybest = -1;
                let mut fxbest = xoff;
                let mut d = fmax;
                while d >= fmin {
                    let mut x = self.f(d).min(xlim);
                    let mut y = x - d;
                    if ylim < y {
                        x = ylim + d;
                        y = ylim;
                    }
                    if fxybest < x + y {
                        fxybest = x + y;
                        fxbest = x;
                    }
                    d -= 2;
                }
                let mut bxybest = isize::MAX;
                let mut bxbest = xlim;
                let mut d = bmax;
                while d >= bmin {
                    let mut x = self.bk(d).max(xoff);
                    let mut y = x - d;
                    if y < yoff {
                        x = yoff + d;
                        y = yoff;
                    }
                    if x + y < bxybest {
                        bxybest = x + y;
                        bxbest = x;
                    }
                    d -= 2;
                }
                return if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
                    (fxbest as usize, (fxybest - fxbest) as usize, true, false)
                } else {
                    (bxbest as usize, (bxybest - bxbest) as usize, false, true)
                };
            }
            c += 1;
        }
    }
}

/// Slides runs of changes (GNU's `shift_boundaries`): first up as far as
/// lines repeat, then down as far as possible, merging with neighbouring
/// runs, and finally back to where the run lines up with a run of changes
/// in the other file if there is such a place.
fn shift_boundaries(eq: &[u32], changed: &mut [bool], other: &[bool]) {
    let n = eq.len() as isize;
    let m = other.len() as isize;
    let ch = |c: &[bool], k: isize| k >= 0 && k < n && c[k as usize];
    let och = |k: isize| k >= 0 && k < m && other[k as usize];
    let (mut i, mut j): (isize, isize) = (0, 0);
    let i_end = n;
    loop {
        while i < i_end && !ch(changed, i) {
            while och(j) {
                j += 1;
            }
            j += 1;
            i += 1;
        }
        if i == i_end {
            break;
        }
        let mut start = i;
        i += 1;
        while ch(changed, i) {
            i += 1;
        }
        while och(j) {
            j += 1;
        }
        let mut corresponding;
        loop {
            let runlength = i - start;
            while start > 0 && eq[(start - 1) as usize] == eq[(i - 1) as usize] {
                start -= 1;
                changed[start as usize] = true;
                i -= 1;
                changed[i as usize] = false;
                while ch(changed, start - 1) {
                    start -= 1;
                }
                j -= 1;
                while och(j) {
                    j -= 1;
                }
            }
            corresponding = if och(j - 1) { i } else { i_end };
            while i != i_end && eq[start as usize] == eq[i as usize] {
                changed[start as usize] = false;
                start += 1;
                changed[i as usize] = true;
                i += 1;
                while ch(changed, i) {
                    i += 1;
                }
                j += 1;
                while och(j) {
                    corresponding = i;
                    j += 1;
                }
            }
            if runlength == i - start {
                break;
            }
        }
        while corresponding < i {
            start -= 1;
            changed[start as usize] = true;
            i -= 1;
            changed[i as usize] = false;
            j -= 1;
            while och(j) {
                j -= 1;
            }
        }
    }
}
