//! Joypad register P1 (0xFF00) and its interrupt.

use crate::error::Result;
use crate::state::{StateReader, StateWriter, Stateful};

pub const IRQ_JOYPAD: u8 = 0x10;

/// The eight buttons. The discriminant is the bit in [`Joypad::pressed`]:
/// bits 0..3 are the direction keys (P14 group), 4..7 the action buttons (P15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    Right = 0,
    Left = 1,
    Up = 2,
    Down = 3,
    A = 4,
    B = 5,
    Select = 6,
    Start = 7,
}

impl Button {
    pub const ALL: [Button; 8] = [
        Button::Right,
        Button::Left,
        Button::Up,
        Button::Down,
        Button::A,
        Button::B,
        Button::Select,
        Button::Start,
    ];

    /// Case-insensitive lookup of "a b start select up down left right".
    pub fn from_name(name: &str) -> Option<Button> {
        Button::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            Button::Right => "right",
            Button::Left => "left",
            Button::Up => "up",
            Button::Down => "down",
            Button::A => "a",
            Button::B => "b",
            Button::Select => "select",
            Button::Start => "start",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Joypad {
    /// P1 bits 4-5 as last written (0 = group selected).
    select: u8,
    /// Bitmask of held buttons (see [`Button`]).
    pub pressed: u8,
}

impl Joypad {
    pub fn new() -> Joypad {
        // The boot ROM leaves both groups selected (P1 reads 0xCF).
        Joypad {
            select: 0x00,
            pressed: 0,
        }
    }

    /// Set P1's group select bits (4-5) as a boot ROM leaves them.
    pub(crate) fn set_select(&mut self, select: u8) {
        self.select = select & 0x30;
    }

    /// Low nibble of P1: 0 = pressed, for the selected groups.
    fn lines(&self) -> u8 {
        let mut low = 0;
        if self.select & 0x10 == 0 {
            low |= self.pressed & 0x0F;
        }
        if self.select & 0x20 == 0 {
            low |= self.pressed >> 4;
        }
        !low & 0x0F
    }

    pub fn read(&self) -> u8 {
        0xC0 | self.select | self.lines()
    }

    /// Returns IF bits: an interrupt when an input line goes from 1 to 0.
    pub fn write(&mut self, value: u8) -> u8 {
        let before = self.lines();
        self.select = value & 0x30;
        self.edge(before)
    }

    /// Replace the set of held buttons; returns IF bits.
    pub fn set_pressed(&mut self, pressed: u8) -> u8 {
        let before = self.lines();
        self.pressed = pressed;
        self.edge(before)
    }

    fn edge(&self, before: u8) -> u8 {
        if before & !self.lines() & 0x0F != 0 {
            IRQ_JOYPAD
        } else {
            0
        }
    }
}

impl Stateful for Joypad {
    fn save(&self, w: &mut StateWriter) {
        w.begin_section(b"JOYP");
        w.u8(self.select);
        w.u8(self.pressed);
        w.end_section();
    }
    fn load(&mut self, r: &mut StateReader) -> Result<()> {
        r.begin_section(b"JOYP")?;
        self.select = r.u8()? & 0x30;
        self.pressed = r.u8()?;
        r.end_section()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn press_in_selected_group_interrupts() {
        let mut j = Joypad::new();
        assert_eq!(j.write(0x20), 0); // select directions (P14 low)
        assert_eq!(j.set_pressed(1 << Button::Down as u8), IRQ_JOYPAD);
        assert_eq!(j.read() & 0x0F, 0b0111);
        // A pressed while only directions are selected: no visible change.
        assert_eq!(j.set_pressed(1 << 3 | 1 << Button::A as u8), 0);
        assert_eq!(j.write(0x10), IRQ_JOYPAD); // now select buttons: A line falls
        assert_eq!(j.read() & 0x0F, 0b1110);
    }

    #[test]
    fn names() {
        assert_eq!(Button::from_name("START"), Some(Button::Start));
        assert_eq!(Button::from_name("x"), None);
    }
}
