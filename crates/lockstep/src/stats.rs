//! Latency figures kept without storing every sample.

/// Min, max, mean and a coarse histogram (10 ms buckets) of latencies in ms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatencyStats {
    /// Samples.
    pub count: u64,
    /// Sum of samples (ms).
    pub sum: u64,
    /// Smallest sample (ms).
    pub min: u64,
    /// Largest sample (ms).
    pub max: u64,
    buckets: Vec<u64>,
}

impl LatencyStats {
    /// Adds one sample.
    pub fn record(&mut self, ms: u64) {
        self.min = if self.count == 0 { ms } else { self.min.min(ms) };
        self.max = self.max.max(ms);
        self.count += 1;
        self.sum += ms;
        let b = (ms / 10).min(999) as usize;
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
    }
    /// Adds every sample of another set.
    pub fn merge(&mut self, o: &Self) {
        if o.count == 0 {
            return;
        }
        self.min = if self.count == 0 { o.min } else { self.min.min(o.min) };
        self.max = self.max.max(o.max);
        self.count += o.count;
        self.sum += o.sum;
        if self.buckets.len() < o.buckets.len() {
            self.buckets.resize(o.buckets.len(), 0);
        }
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
    }
    /// Mean (ms), 0 with no samples.
    pub fn mean(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum as f64 / self.count as f64 }
    }
    /// The `q` quantile (0..=1) to 10 ms resolution (upper bucket edge).
    pub fn quantile(&self, q: f64) -> u64 {
        let want = (self.count as f64 * q).ceil() as u64;
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= want.max(1) {
                return ((i as u64 + 1) * 10).min(self.max);
            }
        }
        self.max
    }
}
