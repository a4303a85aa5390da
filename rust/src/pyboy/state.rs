//! PyBoy save states: reading the files `PyBoy.save_state` writes (PyBoy
//! 2.8.1, state format version 29) into an emurust machine, DMG or CGB, and
//! writing them ([`GameBoy::save_pyboy_state`]).
//!
//! # The format
//!
//! A PyBoy state is the fields of its components written one after the
//! other with no tags or lengths (`pyboy/core/mb.py`, `Motherboard.save_state`
//! and the `save_state` of each component). Integers are little-endian; a
//! plain field is one byte, some are 16 or 64 bits; floats are IEEE doubles.
//! In order:
//!
//! | part | fields |
//! | --- | --- |
//! | header | format version (29), boot ROM mapped, KEY0, KEY1, double speed, CGB hardware; on a CGB then the HDMA: HDMA1-5, HBlank DMA running, current source and destination (16 bits) |
//! | CPU | A F B C D E, HL SP PC (16 bits), IME, EI delay, halted, stopped, IE, interrupt queued, IF, cycles since power-on (64 bits) |
//! | OAM DMA | active, reading, source page, bytes copied, start cycle (64 bits) |
//! | LCD | VRAM (bank 0, 8 KiB), OAM (160), LCDC BGP OBP0 OBP1, STAT, LY, LYC, SCY SCX WY WX, object priority (OPRI), 144 x 5 bytes of per-line scroll registers, CGB, downgraded to DMG, speed shift, frame done, first frame after LCD on, reset pending, last cycles, clock, clock target (64 bits each), next STAT mode, STAT transition; in CGB mode then VRAM bank 1, VBK, BCPS (value, auto-increment, index, high byte), 32 background colours (16 bits), OCPS, 32 object colours |
//! | sound | buffer head, samples per frame, cycles per sample (double), the sample buffer (2 x (samples per frame + 1) bytes), speed shift, two cycle targets (doubles), cycles to interrupt, cycles, last cycles, frame-sequencer counter and step (64 bits), power-on after DIV write, power, sampling off, NR51 as 8 bytes, NR50, then the four channels' registers and timers |
//! | screen | 144 x 160 pixels of 32-bit RGBA and an attribute byte each, window-Y latch |
//! | RAM | WRAM (8 KiB on the DMG, 32 KiB: banks 0-7 on a CGB), 0xFEA0-0xFEFF, I/O 0xFF00-0xFF4B, HRAM; then the WRAM bank select (SVBK) |
//! | timer | DIV, TIMA, the 16-bit system counter, reload countdown (16 bits), TMA, TAC, reload state, last cycles, cycles to interrupt |
//! | cartridge | ROM bank, RAM bank, RAM enabled, banking mode, every RAM bank (8 KiB each, as many as PyBoy gives the header's RAM size), the clock (MBC3+TIMER), MBC1's two bank registers, MBC5's rumble flags |
//! | joypad, serial, SGB | the pressed buttons (two nibbles, 0 = pressed); SB, SC, transfer on, internal clock, four 64-bit times; the SGB state |
//!
//! # What the state lacks, and how it is filled in
//!
//! * **Sub-line PPU position.** PyBoy keeps its LCD clock (dots into the
//!   frame), LY and the STAT mode. emurust places its own PPU at the same
//!   point of the frame (its line 0 starts 4 dots before PyBoy's mode 2 of
//!   line 0, where PyBoy's LY also wraps) and runs its own transitions up to
//!   there with the loaded registers, VRAM and OAM: the mode-3 length of the
//!   current line, the STAT line and the LY=LYC flag come out as emurust
//!   computes them. The window's line counter restarts at 0 (exact at frame
//!   boundaries, where `tick()` leaves a state). In the first frame after an
//!   LCD switch-on (PyBoy's `first_frame`) the switch-on is replayed
//!   `clock` T-cycles ago.
//! * **APU internals.** Registers, channel on flags, length counters,
//!   volumes, envelope timers, duty and wave positions, frequency-timer
//!   phases, the sweep unit and the noise LFSR are taken over; the
//!   frame-sequencer step is PyBoy's step count. emurust clocks envelopes
//!   one step later in the 8-step sequence than PyBoy, so an envelope may
//!   change up to 2 ms apart. A PyBoy started with `sound_emulated=False`
//!   saves an APU that never ran (powered off, every register 0), which
//!   would leave the game silent and NR52 reading 0x70; emurust then keeps
//!   the APU the boot ROM leaves (powered on, post-boot registers).
//! * **Timer reload in progress.** PyBoy's 4-cycle TIMA reload states are
//!   completed at once (TIMA = TMA; PyBoy's IF says whether the interrupt
//!   was requested).
//! * **OAM DMA in progress** completes at once (the remaining bytes are
//!   copied now).
//! * **Serial.** A transfer in progress restarts from its first bit.
//! * **RTC** (MBC3+TIMER): PyBoy's clock runs on wall-clock time; the
//!   registers are taken over and then count emulated time, like emurust's
//!   own clock.
//! * **Screen.** PyBoy's last frame is mapped back to shades by the nearest
//!   of PyBoy's default greys (FF/99/55/00).
//! * The SGB state and PyBoy's sample buffer are read and ignored (emurust
//!   has no SGB features).
//!
//! # The Game Boy Color
//!
//! A state PyBoy saved emulating a CGB (`cgb=True`, or a CGB game with
//! `cgb=None`) loads into a CGB machine (`model="cgb"`), one of a DMG into
//! a DMG; the other pairings, and a CGB state in CGB mode loaded where the
//! machine runs the cartridge in DMG compatibility mode (or the reverse),
//! are refused. Taken over: KEY1 (the armed bit) and the speed, the HDMA
//! (source, destination, blocks left, HBlank DMA running), VRAM bank 1 and
//! VBK, the palette RAM and BCPS/OCPS, OPRI, work RAM banks 0-7 and SVBK,
//! and 0xFEA0-0xFEFF. Where the two differ:
//!
//! * **The clocks.** Both count CPU T-cycles (4 an M-cycle in both speeds);
//!   in double speed the PPU and APU count dots at half that rate. emurust's
//!   dot clock is set equal to the CPU's at the load (`CgbHw::dots`) and the
//!   PPU placed at PyBoy's LCD clock, in dots, as on the DMG: PyBoy's LY
//!   wrap 4 dots after emurust's line 0 starts, in both speeds (in double
//!   speed that is 8 CPU T-cycles; with 4, µCity's frame ends fell apart
//!   more often: 27 against 16 of 300 frames with inputs).
//! * **KEY0.** PyBoy keeps the byte its boot ROM wrote (bit 2: a DMG
//!   cartridge); emurust's mode follows the cartridge header and must agree.
//!   Written as PyBoy's boot ROM leaves it (0, or 4 in compatibility mode).
//! * **KEY1.** PyBoy keeps the byte the game wrote (bit 7 flipped by each
//!   switch); emurust takes bit 0 (armed) and the speed. Written as bit 7 =
//!   double speed, bit 0 = armed.
//! * **OPRI.** PyBoy does not emulate it and holds 0xFF until a game writes
//!   FF6C: 0xFF loads as the boot ROM's value (0 in CGB mode, 1 in DMG
//!   compatibility mode), and that value is written as 0xFF.
//! * **HDMA.** PyBoy's HDMA1-4 are the bytes written (then the address
//!   reached); emurust keeps only the current source and destination, from
//!   which HDMA1-4 are written. HDMA5 is written as emurust reads it (0xFF
//!   after a transfer, bit 7 clear while an HBlank DMA runs).
//! * **0xFEA0-0xFEFF.** PyBoy keeps 96 bytes; emurust's CGB (revision C)
//!   has 24, each at four addresses (address bits 3 and 4 not decoded):
//!   the byte at the address with both bits clear is taken; each address is
//!   written with the byte it reads.
//! * **Not in PyBoy's state**: FF72-FF75 and RP (FF56), which keep the
//!   loading machine's values, and the palettes of DMG compatibility mode
//!   (PyBoy's LCD is downgraded to DMG rendering with `cgb_color_palette`
//!   and saves no palette RAM), which keep the loading machine's.
//! * **Screen.** Each RGBA pixel of PyBoy's last frame becomes the palette
//!   slot of the same colour (`x << 3`) in the loaded palette RAM (the
//!   nearest colour if none is equal); written with PyBoy's conversion from
//!   each line's palettes. The attribute byte is approximated as on the DMG.
//!
//! A state from another format version, from the other model, or one that
//! does not match the ROM (cartridge section of the wrong length) is
//! rejected with `Error::InvalidState` and the machine is left unchanged.

mod load;
mod parse;
mod save;
#[cfg(test)]
mod tests;

pub use parse::{parse, PyBoyState, PYBOY_STATE_VERSION};
