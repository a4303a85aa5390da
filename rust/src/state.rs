//! Save-state serialization helpers: a tiny little-endian byte writer/reader.
//!
//! A state is a header (magic, format version, ROM checksum) followed by
//! sections; every section starts with a 4-byte tag and a u32 length so a
//! reader can check it is looking at what it expects. All reads are bounds
//! checked and return `Error::InvalidState` instead of panicking.

use crate::error::{Error, Result};

#[derive(Default)]
pub struct StateWriter {
    buf: Vec<u8>,
    section_start: Option<usize>,
}

impl StateWriter {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn into_bytes(self) -> Vec<u8> {
        debug_assert!(self.section_start.is_none(), "unterminated section");
        self.buf
    }
    /// The bytes followed by their checksum (see [`unseal`]).
    pub fn into_sealed(self) -> Vec<u8> {
        let mut buf = self.into_bytes();
        let sum = checksum(&buf);
        buf.extend_from_slice(&sum.to_le_bytes());
        buf
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn bool(&mut self, v: bool) {
        self.buf.push(v as u8);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Length-prefixed byte string.
    pub fn bytes(&mut self, v: &[u8]) {
        self.u32(v.len() as u32);
        self.buf.extend_from_slice(v);
    }
    /// Raw bytes with no length (the reader must know the length).
    pub fn raw(&mut self, v: &[u8]) {
        self.buf.extend_from_slice(v);
    }
    /// Start a tagged section; must be closed with `end_section`.
    pub fn begin_section(&mut self, tag: &[u8; 4]) {
        debug_assert!(self.section_start.is_none(), "nested section");
        self.buf.extend_from_slice(tag);
        self.section_start = Some(self.buf.len());
        self.u32(0);
    }
    pub fn end_section(&mut self) {
        let start = self
            .section_start
            .take()
            .expect("end_section without begin");
        let len = (self.buf.len() - start - 4) as u32;
        self.buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// Bytes of the checksum at the end of a sealed state.
pub const CHECKSUM_LEN: usize = 8;

/// The checksum of a state's bytes (xxh3, 64 bits).
pub fn checksum(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

/// The state bytes of a sealed state (everything before its checksum), or
/// an error if the checksum does not match them.
pub fn unseal(data: &[u8]) -> Result<&[u8]> {
    let Some(body_len) = data.len().checked_sub(CHECKSUM_LEN) else {
        return Err(Error::InvalidState(format!(
            "state is truncated: {} bytes is shorter than its checksum",
            data.len()
        )));
    };
    let (body, tail) = data.split_at(body_len);
    let stored = u64::from_le_bytes(tail.try_into().expect("split at CHECKSUM_LEN"));
    let actual = checksum(body);
    if stored != actual {
        return Err(Error::InvalidState(format!(
            "corrupted state: its checksum does not match its contents (stored {stored:016x}, \
             computed {actual:016x}); the state was damaged or edited after it was saved"
        )));
    }
    Ok(body)
}

/// `data` (a sealed state whose body was edited on purpose, e.g. by
/// verification tooling) sealed again with a checksum of its new body.
pub fn reseal(data: &[u8]) -> Result<Vec<u8>> {
    let body_len = data.len().checked_sub(CHECKSUM_LEN).ok_or_else(|| {
        Error::InvalidState(format!(
            "state is truncated: {} bytes is shorter than its checksum",
            data.len()
        ))
    })?;
    let mut out = data[..body_len].to_vec();
    out.extend_from_slice(&checksum(&out).to_le_bytes());
    Ok(out)
}

pub struct StateReader<'a> {
    buf: &'a [u8],
    pos: usize,
    section_end: Option<(usize, [u8; 4])>,
    /// The state may come from another ROM (`GameBoy::load_state_checked`
    /// with the ROM check off): the cartridge section then does not compare
    /// its ROM fingerprint and exact type byte.
    pub other_rom_ok: bool,
}

impl<'a> StateReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        StateReader {
            buf,
            pos: 0,
            section_end: None,
            other_rom_ok: false,
        }
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// Bytes left in the current section (in the whole buffer outside one).
    pub fn section_left(&self) -> usize {
        self.section_end.map_or(self.buf.len(), |(e, _)| e) - self.pos
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let limit = self.section_end.map_or(self.buf.len(), |(e, _)| e);
        if self.pos + n > limit {
            return Err(Error::InvalidState(format!(
                "state is truncated: needed {} more bytes at offset {}, only {} left",
                n,
                self.pos,
                limit.saturating_sub(self.pos)
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Error::InvalidState(format!(
                "corrupted state: boolean field holds {v}"
            ))),
        }
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// Reads a length-prefixed byte string that must be exactly `len` long.
    pub fn bytes_exact(&mut self, len: usize, what: &str) -> Result<&'a [u8]> {
        let b = self.bytes()?;
        if b.len() != len {
            return Err(Error::InvalidState(format!(
                "corrupted state: {what} has {} bytes, expected {len}",
                b.len()
            )));
        }
        Ok(b)
    }
    pub fn raw(&mut self, n: usize) -> Result<&'a [u8]> {
        self.take(n)
    }
    /// The tag of the section that starts here, if one can (4 bytes left),
    /// without reading it: for optional sections.
    pub fn peek_tag(&self) -> Option<[u8; 4]> {
        self.buf.get(self.pos..self.pos + 4)?.try_into().ok()
    }
    pub fn begin_section(&mut self, tag: &[u8; 4]) -> Result<()> {
        let got = self.take(4)?;
        if got != tag {
            return Err(Error::InvalidState(format!(
                "corrupted state: expected section {:?}, found {:?}",
                String::from_utf8_lossy(tag),
                String::from_utf8_lossy(got)
            )));
        }
        let len = self.u32()? as usize;
        if self.pos + len > self.buf.len() {
            return Err(Error::InvalidState(format!(
                "state is truncated: section {:?} claims {len} bytes, only {} left",
                String::from_utf8_lossy(tag),
                self.remaining()
            )));
        }
        self.section_end = Some((self.pos + len, *tag));
        Ok(())
    }
    pub fn end_section(&mut self) -> Result<()> {
        let (end, tag) = self.section_end.take().expect("end_section without begin");
        if self.pos != end {
            return Err(Error::InvalidState(format!(
                "corrupted state: section {:?} has {} unread bytes",
                String::from_utf8_lossy(&tag),
                end as isize - self.pos as isize
            )));
        }
        Ok(())
    }
}

/// A type whose state can be saved and restored.
pub trait Stateful {
    fn save(&self, w: &mut StateWriter);
    fn load(&mut self, r: &mut StateReader) -> Result<()>;
}
