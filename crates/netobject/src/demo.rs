//! Demo recording and playback (placeholder, filled in below).

/// Records what a client connection receives.
#[derive(Debug, Default)]
pub struct DemoRecorder {
    buf: Vec<u8>,
}

impl DemoRecorder {
    pub(crate) fn packet(&mut self, now: u64, data: &[u8], payload_bit: usize) {
        let _ = (now, data, payload_bit);
        self.buf.clear();
    }
}
