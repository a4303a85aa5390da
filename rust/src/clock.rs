//! The Game Boy's clock: the numbers every component counts time in, in
//! one place (the timer, the PPU, the APU's sample clock, the MBC3's
//! real-time clock, the bindings and, through `_core`, the Python package).
//!
//! Time is counted in T-cycles of the DMG's system clock (a CGB in normal
//! speed; in double speed the CPU's clock runs twice as fast against the
//! same dots, `crate::cgb::CgbHw::dots`).

/// T-cycles per second.
pub const CLOCK_HZ: u64 = 4_194_304;

/// Dots (T-cycles in normal speed) per LCD line.
pub const DOTS_PER_LINE: u64 = 456;

/// LCD lines per frame: 144 drawn, 10 of VBlank.
pub const LINES_PER_FRAME: u64 = 154;

/// T-cycles per frame (70,224; about 59.73 frames a second).
pub const FRAME_CYCLES: u64 = DOTS_PER_LINE * LINES_PER_FRAME;
