//! The batched engine (`emurust::vec::VecEngine`): bit-identical results
//! whatever the thread count, each env identical to a lone `GameBoy` driven
//! with the same buttons, hold/release timing, snapshots, resets, bad input,
//! and the memory it reports per env.
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use emurust::bus::{Ram, RAM_SIZE};
use emurust::screen::{HEIGHT, PIXELS, WIDTH};
use emurust::vec::{ObsMode, VecConfig, VecEngine, DEFAULT_ACTIONS};
use emurust::{Button, Error, GameBoy};

// ---------------------------------------------------------------------------
// Allocation counting (for `bytes_per_env`), per thread so that tests running
// in parallel do not see each other's allocations.
// ---------------------------------------------------------------------------

struct Counting;

thread_local! {
    static LIVE_BYTES: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: the thread-local may be gone while a thread exits.
    let _ = LIVE_BYTES.try_with(|c| c.set(c.get() + delta));
}

// SAFETY (not an unsafe block; the trait is unsafe): every call forwards to
// the system allocator with the same arguments.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> isize {
    LIVE_BYTES.with(|c| c.get())
}

// ---------------------------------------------------------------------------
// A generated ROM: counts the frames in which a direction key is held
// ---------------------------------------------------------------------------

/// Address of the counter the joypad ROM increments.
const PRESSED_FRAMES: u16 = 0xC000;

/// A 32 KiB ROM-only image whose program, once per frame (when LY reaches
/// 144, the start of a frame), reads the direction keys and increments
/// [`PRESSED_FRAMES`] if any is held.
fn joypad_rom() -> Vec<u8> {
    #[rustfmt::skip]
    let program: [u8; 34] = [
        0xF3,             // 0150 DI
        0x3E, 0x20,       // 0151 LD A,0x20     select the direction keys
        0xE0, 0x00,       // 0153 LDH [P1],A
        0xF0, 0x44,       // 0155 wait: LDH A,[LY]
        0xFE, 0x90,       // 0157 CP 144
        0x20, 0xFA,       // 0159 JR NZ,wait
        0xF0, 0x00,       // 015B LDH A,[P1]
        0xE6, 0x0F,       // 015D AND 0x0F      0 bits = held
        0xFE, 0x0F,       // 015F CP 0x0F
        0x28, 0x07,       // 0161 JR Z,done
        0xFA, 0x00, 0xC0, // 0163 LD A,[0xC000]
        0x3C,             // 0166 INC A
        0xEA, 0x00, 0xC0, // 0167 LD [0xC000],A
        0xF0, 0x44,       // 016A done: LDH A,[LY]
        0xFE, 0x90,       // 016C CP 144
        0x28, 0xFA,       // 016E JR Z,done     wait for the line to pass
        0x18, 0xE3,       // 0170 JR wait
    ];
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x104].copy_from_slice(&[0x00, 0xC3, 0x50, 0x01]); // NOP; JP 0x0150
    rom[0x134..0x140].copy_from_slice(b"VEC ENGINE\0\0");
    rom[0x150..0x150 + program.len()].copy_from_slice(&program);
    let mut x: u8 = 0;
    for &b in &rom[0x134..0x14D] {
        x = x.wrapping_sub(b).wrapping_sub(1);
    }
    rom[0x14D] = x;
    rom
}

fn shared(rom: &[u8]) -> Arc<[u8]> {
    Arc::from(rom)
}

fn config(num_threads: usize) -> VecConfig {
    VecConfig {
        num_threads,
        ..VecConfig::default()
    }
}

/// A deterministic, varied action schedule: env `env`, step `step`.
fn action(env: usize, step: usize, actions: usize) -> u8 {
    ((env * 7 + step * 5 + (step / 3) * env) % actions) as u8
}

fn actions_at(step: usize, num_envs: usize, actions: usize) -> Vec<u8> {
    (0..num_envs).map(|e| action(e, step, actions)).collect()
}

/// Everything observable of an engine: observations, gathered RAM, WRAM/HRAM
/// and every env's full save state.
fn fingerprint(e: &VecEngine) -> (Vec<u8>, Vec<u8>, Vec<Ram>, Vec<Vec<u8>>) {
    (
        e.obs().to_vec(),
        e.ram().to_vec(),
        e.rams().to_vec(),
        (0..e.num_envs())
            .map(|i| e.save_state(i).unwrap())
            .collect(),
    )
}

// ---------------------------------------------------------------------------
// Determinism and equivalence with a lone GameBoy
// ---------------------------------------------------------------------------

fn run_engine(rom: &[u8], num_threads: usize, steps: usize) -> VecEngine {
    let mut e = VecEngine::new(
        shared(rom),
        8,
        VecConfig {
            ram_addresses: vec![0xC000, 0xC0A0, 0xFF44, 0xFF80, 0xD000],
            frame_stack: 2,
            ..config(num_threads)
        },
    )
    .unwrap();
    for s in 0..steps {
        e.step(&actions_at(s, 8, DEFAULT_ACTIONS.len())).unwrap();
    }
    e
}

#[test]
fn identical_whatever_the_thread_count() {
    let Some(rom) = common::load("homebrew/2048/2048.gb") else {
        return;
    };
    let one = fingerprint(&run_engine(&rom, 1, 40));
    for threads in [2, 4] {
        let other = run_engine(&rom, threads, 40);
        assert_eq!(other.num_threads(), threads);
        assert!(
            fingerprint(&other) == one,
            "{threads} threads differ from 1"
        );
    }
    assert!(
        fingerprint(&run_engine(&rom, 2, 40)) == one,
        "a repeated run differs"
    );
    // The envs really did different things (the test is not vacuous).
    let (_, _, rams, states) = one;
    assert!(rams.iter().any(|r| r != &rams[0]));
    assert!(states.iter().any(|s| s != &states[0]));
}

/// Drive a lone GameBoy as the engine drives env `env` for one step.
fn lone_step(gb: &mut GameBoy, mask: u8, frame_skip: u32, hold: u32) {
    gb.set_buttons(if hold > 0 { mask } else { 0 });
    for f in 0..frame_skip {
        if f == hold && f > 0 {
            gb.set_buttons(0);
        }
        gb.run_frame(f + 1 == frame_skip);
    }
}

fn luma_of_shades(shades: &[u8]) -> Vec<u8> {
    shades
        .iter()
        .map(|&s| [255, 170, 85, 0][s as usize])
        .collect()
}

fn compare_with_lone(rel: &str, steps: usize, frame_skip: u32, hold: u32) {
    let Some(rom) = common::load(rel) else { return };
    let n = 3;
    let mut e = VecEngine::new(
        shared(&rom),
        n,
        VecConfig {
            frame_skip,
            hold_frames: hold,
            num_threads: 2,
            ..VecConfig::default()
        },
    )
    .unwrap();
    let mut lone: Vec<GameBoy> = (0..n).map(|_| GameBoy::new(&rom, None).unwrap()).collect();
    let table = emurust::vec::default_action_table();
    for s in 0..steps {
        let actions = actions_at(s, n, table.len());
        e.step(&actions).unwrap();
        for (i, gb) in lone.iter_mut().enumerate() {
            lone_step(gb, table[actions[i] as usize], frame_skip, hold);
            let obs = &e.obs()[i * PIXELS..(i + 1) * PIXELS];
            assert!(
                obs == &luma_of_shades(gb.screen().shades())[..],
                "{rel}: env {i} frame differs from a lone GameBoy at step {s}"
            );
            assert!(
                e.rams()[i] == *gb.ram(),
                "{rel}: env {i} WRAM/HRAM differ at step {s}"
            );
            assert_eq!(e.frame_count(i), gb.frame_count());
        }
    }
    for (i, gb) in lone.iter().enumerate() {
        assert!(
            e.save_state(i).unwrap() == gb.save_state(),
            "{rel}: env {i} state differs after {steps} steps"
        );
        assert_eq!(e.wram(i), &gb.ram()[..0x2000]);
        assert_eq!(e.hram(i), &gb.ram()[0x2000..]);
        assert_eq!(e.peek(i, 0xC123), gb.peek(0xC123));
    }
}

#[test]
fn each_env_matches_a_lone_gameboy_2048() {
    compare_with_lone("homebrew/2048/2048.gb", 30, 24, 8);
}

#[test]
fn each_env_matches_a_lone_gameboy_tobu() {
    compare_with_lone("homebrew/tobutobugirl/tobu.gb", 30, 24, 8);
    compare_with_lone("homebrew/tobutobugirl/tobu.gb", 20, 5, 5);
}

// ---------------------------------------------------------------------------
// Hold / release
// ---------------------------------------------------------------------------

fn pressed_frames_after(frame_skip: u32, hold: u32, action: u8) -> (u8, u8) {
    let mut e = VecEngine::new(
        shared(&joypad_rom()),
        2,
        VecConfig {
            frame_skip,
            hold_frames: hold,
            num_threads: 1,
            ram_addresses: vec![PRESSED_FRAMES],
            action_table: None,
            ..VecConfig::default()
        },
    )
    .unwrap();
    // Env 1 never presses anything.
    e.step(&[0, 0]).unwrap(); // warm up: the program is waiting for LY = 144
    assert_eq!(e.ram(), &[0, 0]);
    e.step(&[action, 0]).unwrap();
    assert_eq!(e.ram()[1], 0, "env 1 saw a press it was not given");
    let mut gb = GameBoy::new(&joypad_rom(), None).unwrap();
    gb.load_state(&e.save_state(0).unwrap()).unwrap();
    (e.ram()[0], gb.hardware().joypad.pressed)
}

#[test]
fn buttons_are_held_for_hold_frames_then_released() {
    let down = 1 << Button::Down.index();
    for (skip, hold) in [(24, 8), (24, 1), (10, 9), (4, 0)] {
        let (frames, held) = pressed_frames_after(skip, hold, down);
        assert_eq!(
            u32::from(frames),
            hold,
            "frame_skip {skip}, hold {hold}: pressed in {frames} frames"
        );
        assert_eq!(held, 0, "released at the end of the step");
    }
    // hold_frames == frame_skip: held through the step and after it.
    let (frames, held) = pressed_frames_after(6, 6, down);
    assert_eq!(frames, 6);
    assert_eq!(held, down);
    // The action buttons are not in the selected group: never counted.
    let (frames, _) = pressed_frames_after(24, 8, 1 << Button::A.index());
    assert_eq!(frames, 0);
}

#[test]
fn default_action_table_is_the_pokemon_one() {
    let names: Vec<Vec<&str>> = DEFAULT_ACTIONS
        .iter()
        .map(|a| a.iter().map(|b| b.name()).collect())
        .collect();
    assert_eq!(
        names,
        [
            vec!["down"],
            vec!["left"],
            vec!["right"],
            vec!["up"],
            vec!["a"],
            vec!["b"],
            vec!["start"],
            vec![]
        ]
    );
    // Action 0 (down) reaches the joypad as Down.
    let mut e = VecEngine::new(
        shared(&joypad_rom()),
        1,
        VecConfig {
            num_threads: 1,
            ram_addresses: vec![PRESSED_FRAMES],
            ..VecConfig::default()
        },
    )
    .unwrap();
    e.step(&[7]).unwrap();
    e.step(&[0]).unwrap();
    assert_eq!(e.ram(), &[8]);
    e.step(&[4]).unwrap(); // A: another group
    e.step(&[7]).unwrap(); // no-op
    assert_eq!(e.ram(), &[8]);
}

// ---------------------------------------------------------------------------
// Observations
// ---------------------------------------------------------------------------

#[test]
fn observation_modes_and_frame_stack() {
    let Some(rom) = common::load("homebrew/2048/2048.gb") else {
        return;
    };
    let n = 2;
    let engine = |obs: ObsMode, frame_stack: usize| {
        VecEngine::new(
            shared(&rom),
            n,
            VecConfig {
                obs,
                frame_stack,
                num_threads: 1,
                ..VecConfig::default()
            },
        )
        .unwrap()
    };
    let screens = [
        ObsMode::Gray,
        ObsMode::Rgb,
        ObsMode::Shades,
        ObsMode::GrayHalf,
    ];
    let mut modes: Vec<VecEngine> = screens.iter().map(|&m| engine(m, 1)).collect();
    let mut stacked = engine(ObsMode::Gray, 3);
    assert_eq!(stacked.observation_shape(), [3, HEIGHT, WIDTH]);
    assert_eq!(modes[1].observation_shape(), [HEIGHT, WIDTH, 3]);
    assert_eq!(modes[3].observation_shape(), [HEIGHT / 2, WIDTH / 2]);
    let mut history: Vec<Vec<u8>> = Vec::new();
    // Power-on: a blank (white) screen in every stack slot.
    assert!(stacked.obs().iter().all(|&g| g == 255));
    for s in 0..12 {
        let actions = actions_at(s, n, 8);
        for m in modes.iter_mut() {
            m.step(&actions).unwrap();
        }
        stacked.step(&actions).unwrap();
        let [gray, rgb, shades, half] = &modes[..] else {
            unreachable!()
        };
        assert!(shades.obs().iter().all(|&v| v <= 3));
        assert_eq!(gray.obs(), &luma_of_shades(shades.obs())[..]);
        for (px, g) in rgb.obs().chunks_exact(3).zip(gray.obs()) {
            assert_eq!(px, [*g, *g, *g]);
        }
        for (i, h) in half.obs().iter().enumerate() {
            let (env, y, x) = (i / 5760, i / 80 % 72, i % 80);
            let at = |dy: usize, dx: usize| {
                u32::from(gray.obs()[env * PIXELS + (2 * y + dy) * WIDTH + 2 * x + dx])
            };
            assert_eq!(
                u32::from(*h),
                (at(0, 0) + at(0, 1) + at(1, 0) + at(1, 1) + 2) / 4
            );
        }
        history.push(gray.obs().to_vec());
        // Stack: slot 2 is the newest frame, slots 1 and 0 the two before
        // (the reset frame repeated at first).
        for env in 0..n {
            for slot in 0..3 {
                let back = 2 - slot;
                let want: Vec<u8> = if s >= back {
                    history[s - back][env * PIXELS..(env + 1) * PIXELS].to_vec()
                } else {
                    vec![255; PIXELS]
                };
                let got = &stacked.obs()[(env * 3 + slot) * PIXELS..(env * 3 + slot + 1) * PIXELS];
                assert!(got == &want[..], "step {s} env {env} stack slot {slot}");
            }
        }
    }
    // Not vacuous: the game drew something.
    assert!(history.last().unwrap().iter().any(|&g| g != 255));
}

/// `ObsMode::None` draws nothing and observes nothing, and runs the same
/// machines: everything it gathers and holds matches an engine that draws (WRAM/HRAM, I/O registers, frame counts), step for step, on one
/// thread and on several (caller buffers too).
#[test]
fn no_screen_mode_runs_the_same_machines() {
    let rom = common::load("homebrew/2048/2048.gb").unwrap_or_else(joypad_rom);
    let addresses = vec![0xC000, 0xC0A0, 0xFF44, 0xFF80, 0xD000];
    for threads in [1, 2] {
        let make = |obs: ObsMode| {
            VecEngine::new(
                shared(&rom),
                4,
                VecConfig {
                    obs,
                    ram_addresses: addresses.clone(),
                    ..config(threads)
                },
            )
            .unwrap()
        };
        let mut none = make(ObsMode::None);
        let mut drawn = make(ObsMode::Gray);
        assert_eq!(none.observation_shape(), [0]);
        assert_eq!(none.obs_len(), 0);
        assert!(none.obs().is_empty());
        let mut obs_out: Vec<u8> = Vec::new();
        let mut ram_out = vec![0u8; 4 * addresses.len()];
        for s in 0..40 {
            let actions = actions_at(s, 4, DEFAULT_ACTIONS.len());
            if s % 2 == 0 {
                none.step(&actions).unwrap();
            } else {
                none.step_into(&actions, Some(&mut obs_out), Some(&mut ram_out))
                    .unwrap();
                assert_eq!(ram_out, none.ram());
            }
            drawn.step(&actions).unwrap();
            assert_eq!(none.ram(), drawn.ram(), "threads {threads}, step {s}");
            assert!(none.rams() == drawn.rams(), "threads {threads}, step {s}");
            for i in 0..4 {
                assert_eq!(none.frame_count(i), drawn.frame_count(i));
                for a in 0xFF00..=0xFF7Fu16 {
                    assert_eq!(none.peek(i, a), drawn.peek(i, a), "env {i}, {a:#06x}");
                }
            }
        }
        // Not vacuous: the machines wrote RAM; and nothing was drawn.
        assert!(none.rams().iter().any(|r| r.iter().any(|&b| b != 0)));
        assert!(none.frame_shades(0).iter().all(|&s| s == 0));
        let mut stacked = VecConfig {
            obs: ObsMode::None,
            frame_stack: 2,
            ..config(threads)
        };
        let err = VecEngine::new(shared(&rom), 1, stacked.clone())
            .err()
            .unwrap();
        assert!(matches!(err, Error::InvalidArgument(m) if m.contains("frame_stack")));
        stacked.frame_stack = 1;
        assert!(VecEngine::new(shared(&rom), 1, stacked).is_ok());
    }
}

#[test]
fn caller_owned_buffers_get_the_same_bytes() {
    let rom = joypad_rom();
    for threads in [1, 2] {
        let mut e = VecEngine::new(
            shared(&rom),
            3,
            VecConfig {
                num_threads: threads,
                ram_addresses: vec![PRESSED_FRAMES, 0xFF44],
                frame_stack: 2,
                ..VecConfig::default()
            },
        )
        .unwrap();
        let mut obs = vec![7u8; e.obs().len()];
        let mut ram = vec![7u8; e.ram().len()];
        for s in 0..3 {
            e.step_into(&actions_at(s, 3, 8), Some(&mut obs), Some(&mut ram))
                .unwrap();
            assert_eq!(obs, e.obs());
            assert_eq!(ram, e.ram());
        }
        assert!(ram.iter().any(|&b| b != 0));
        // Wrong lengths: refused before anything runs.
        let before = e.frame_count(0);
        let mut short = vec![0u8; obs.len() - 1];
        assert!(matches!(
            e.step_into(&[0, 0, 0], Some(&mut short), None),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            e.step_into(&[0, 0, 0], None, Some(&mut [0u8; 5])),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(e.frame_count(0), before);
    }
}

// ---------------------------------------------------------------------------
// Snapshots, states, resets
// ---------------------------------------------------------------------------

#[test]
fn snapshot_restore_round_trip() {
    let Some(rom) = common::load("homebrew/tobutobugirl/tobu.gb") else {
        return;
    };
    let mut e = VecEngine::new(shared(&rom), 2, config(2)).unwrap();
    for s in 0..10 {
        e.step(&actions_at(s, 2, 8)).unwrap();
    }
    let snap = e.snapshot(0).unwrap();
    assert_eq!(snap.frame_count(), e.frame_count(0));
    assert!(snap.save_state() == e.save_state(0).unwrap());
    let obs_at_snapshot = e.obs()[..PIXELS].to_vec();
    let mut first_run = Vec::new();
    for s in 10..20 {
        e.step(&actions_at(s, 2, 8)).unwrap();
        first_run.push(fingerprint(&e).3[0].clone());
    }
    e.restore(0, &snap).unwrap();
    assert!(e.save_state(0).unwrap() == snap.save_state());
    assert_eq!(
        &e.obs()[..PIXELS],
        &obs_at_snapshot[..],
        "observation restored"
    );
    for (k, s) in (10..20).enumerate() {
        e.step(&actions_at(s, 2, 8)).unwrap();
        assert!(
            e.save_state(0).unwrap() == first_run[k],
            "replay after restore differs at step {s}"
        );
    }
    // Into another env; and a snapshot taken again into the same object.
    e.restore(1, &snap).unwrap();
    assert!(e.save_state(1).unwrap() == snap.save_state());
    let mut reused = e.snapshot(1).unwrap();
    e.step(&[3, 5]).unwrap();
    e.snapshot_into(1, &mut reused).unwrap();
    assert!(reused.save_state() == e.save_state(1).unwrap());
    assert!(reused.bytes() > RAM_SIZE);
    // Out of range: an error, nothing changed.
    assert!(matches!(
        e.restore(2, &snap),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(e.snapshot(2), Err(Error::InvalidArgument(_))));
}

#[test]
fn a_snapshot_of_another_rom_is_refused() {
    let mut a = VecEngine::new(shared(&joypad_rom()), 1, config(1)).unwrap();
    let mut other_rom = joypad_rom();
    other_rom[0x7FFF] = 1;
    let b = VecEngine::new(shared(&other_rom), 1, config(1)).unwrap();
    let before = a.save_state(0).unwrap();
    assert!(matches!(
        a.restore(0, &b.snapshot(0).unwrap()),
        Err(Error::InvalidState(_))
    ));
    assert!(matches!(
        a.load_state(0, &b.save_state(0).unwrap()),
        Err(Error::InvalidState(_))
    ));
    assert!(a.save_state(0).unwrap() == before);
    // An initial state from another ROM.
    let err = VecEngine::new(
        shared(&joypad_rom()),
        1,
        VecConfig {
            initial_state: Some(b.save_state(0).unwrap()),
            ..config(1)
        },
    );
    assert!(matches!(err, Err(Error::InvalidState(_))));
}

#[test]
fn states_load_across_engine_and_gameboy() {
    let rom = joypad_rom();
    let mut gb = GameBoy::new(&rom, None).unwrap();
    gb.press(Button::Left);
    gb.run_frames(30, false);
    gb.release(Button::Left);
    let state = gb.save_state();
    // As the initial state: every env and every reset starts there.
    let mut e = VecEngine::new(
        shared(&rom),
        3,
        VecConfig {
            initial_state: Some(state.clone()),
            ram_addresses: vec![PRESSED_FRAMES],
            ..config(1)
        },
    )
    .unwrap();
    let counted = gb.peek(PRESSED_FRAMES);
    assert!(counted > 0);
    assert_eq!(e.ram(), &[counted; 3]);
    assert!(
        e.obs().iter().all(|&g| g == 255),
        "the state's picture: blank, as no frame was drawn"
    );
    for i in 0..3 {
        assert!(e.save_state(i).unwrap() == state);
    }
    e.step(&[0, 1, 2]).unwrap();
    e.step(&[0, 1, 2]).unwrap();
    // reset_envs: only the masked envs go back.
    let stepped = e.save_state(1).unwrap();
    e.reset_envs(&[true, false, true]).unwrap();
    assert!(e.save_state(0).unwrap() == state);
    assert!(e.save_state(1).unwrap() == stepped);
    assert!(e.save_state(2).unwrap() == state);
    assert_eq!(e.ram()[0], counted, "gathered RAM refreshed on reset");
    assert!(matches!(
        e.reset_envs(&[true, false]),
        Err(Error::InvalidArgument(_))
    ));
    e.reset();
    for i in 0..3 {
        assert!(e.save_state(i).unwrap() == state);
    }
    // load_state into one env; a bad state leaves it unchanged.
    e.step(&[0, 0, 0]).unwrap();
    let env2 = e.save_state(2).unwrap();
    e.load_state(0, &env2).unwrap();
    assert!(e.save_state(0).unwrap() == env2);
    assert!(matches!(
        e.load_state(1, &env2[..env2.len() - 1]),
        Err(Error::InvalidState(_))
    ));
    assert!(e.save_state(1).unwrap() == env2);
    assert!(matches!(
        e.load_state(3, &env2),
        Err(Error::InvalidArgument(_))
    ));
}

// ---------------------------------------------------------------------------
// Masked steps and memory writes (what the RL envs' autoreset and seeding use)
// ---------------------------------------------------------------------------

/// A masked step runs exactly the envs of the mask: each ends up as if only
/// its own steps had been taken (compared with an engine that stepped it
/// alone), and the others do not move at all, whatever their action.
#[test]
fn masked_steps_run_only_the_masked_envs() {
    for threads in [1, 3] {
        let cfg = || VecConfig {
            ram_addresses: vec![PRESSED_FRAMES, 0xFF44],
            ..config(threads)
        };
        let mut e = VecEngine::new(shared(&joypad_rom()), 4, cfg()).unwrap();
        let mut steps_of = [0usize; 4];
        for s in 0..12 {
            let active: Vec<bool> = (0..4).map(|i| (s + i) % 3 != 0).collect();
            let before = fingerprint(&e);
            // Env actions out of the table's range are ignored where masked out.
            let actions: Vec<u8> = (0..4)
                .map(|i| if active[i] { action(i, s, 8) } else { 200 })
                .collect();
            e.step_masked(&actions, Some(&active), None, None).unwrap();
            let after = fingerprint(&e);
            let obs_len = e.obs_len();
            for i in 0..4 {
                let unchanged = before.3[i] == after.3[i]
                    && before.0[i * obs_len..(i + 1) * obs_len]
                        == after.0[i * obs_len..(i + 1) * obs_len]
                    && before.1[i * 2..i * 2 + 2] == after.1[i * 2..i * 2 + 2];
                assert_eq!(unchanged, !active[i], "env {i} at step {s}");
                steps_of[i] += usize::from(active[i]);
            }
        }
        for (i, &n) in steps_of.iter().enumerate() {
            assert_eq!(e.frame_count(i), 24 * n as u64);
        }
        // The same envs stepped one at a time, each in an engine of its own.
        for i in 0..4 {
            let mut lone = VecEngine::new(shared(&joypad_rom()), 1, cfg()).unwrap();
            for s in (0..12).filter(|s| (s + i) % 3 != 0) {
                lone.step(&[action(i, s, 8)]).unwrap();
            }
            assert_eq!(
                lone.save_state(0).unwrap(),
                e.save_state(i).unwrap(),
                "env {i}"
            );
            assert_eq!(lone.ram(), &e.ram()[i * 2..i * 2 + 2]);
        }
    }
}

/// Envs started from a GameBoy's snapshot, or from its save state, begin
/// with its last drawn frame, and a reset returns to it; a snapshot of
/// another ROM is refused.
#[test]
fn envs_start_from_a_gameboys_snapshot_with_its_frame() {
    let mut gb = GameBoy::new(&joypad_rom(), None).unwrap();
    gb.run_frames(30, true);
    gb.poke(0xC123, 0x5A);
    let shades = *gb.screen().shades();
    let cfg = |snap, state| VecConfig {
        obs: ObsMode::Shades,
        initial_snapshot: snap,
        initial_state: state,
        ..config(1)
    };
    let mut e = VecEngine::new(shared(&joypad_rom()), 2, cfg(Some(gb.snapshot()), None)).unwrap();
    for i in 0..2 {
        assert_eq!(e.frame_count(i), 30);
        assert_eq!(e.peek(i, 0xC123), 0x5A);
        assert_eq!(&e.obs()[i * PIXELS..(i + 1) * PIXELS], &shades[..]);
    }
    assert!(shades.iter().any(|&s| s != 0), "the frame is not blank");
    e.step(&[0, 1]).unwrap();
    e.reset();
    assert_eq!(&e.obs()[..PIXELS], &shades[..]);
    let mut from_bytes =
        VecEngine::new(shared(&joypad_rom()), 1, cfg(None, Some(gb.save_state()))).unwrap();
    assert_eq!(
        &from_bytes.obs()[..PIXELS],
        &shades[..],
        "the state's picture"
    );
    from_bytes.step(&[0]).unwrap();
    from_bytes.reset();
    assert_eq!(
        &from_bytes.obs()[..PIXELS],
        &shades[..],
        "and again after a reset"
    );
    let mut other = joypad_rom();
    other[0x134] = b'W';
    let other_rom = VecEngine::new(shared(&other), 1, cfg(Some(gb.snapshot()), None));
    assert!(matches!(other_rom, Err(Error::InvalidState(_))));
    let both = VecEngine::new(
        shared(&joypad_rom()),
        1,
        cfg(Some(gb.snapshot()), Some(gb.save_state())),
    );
    assert!(matches!(both, Err(Error::InvalidArgument(_))));
}

#[test]
fn set_memory_writes_the_masked_envs_through_the_bus() {
    let cfg = VecConfig {
        ram_addresses: vec![0xC100, 0xC101, 0xFF80],
        ..config(1)
    };
    let mut e = VecEngine::new(shared(&joypad_rom()), 3, cfg).unwrap();
    e.set_memory(0xC100, &[1, 2, 3, 4, 5, 6], Some(&[true, false, true]))
        .unwrap();
    assert_eq!((e.peek(0, 0xC100), e.peek(0, 0xC101)), (1, 2));
    assert_eq!((e.peek(1, 0xC100), e.peek(1, 0xC101)), (0, 0));
    assert_eq!((e.peek(2, 0xC100), e.peek(2, 0xC101)), (5, 6));
    assert_eq!(
        e.ram(),
        &[1, 2, 0, 0, 0, 0, 5, 6, 0],
        "gathered rows refreshed"
    );
    assert_eq!(e.wram(2)[0x100..0x102], [5, 6]);
    // One byte per env, all envs; HRAM and an I/O register (through the bus:
    // writing DIV resets it).
    e.set_memory(0xFF80, &[7, 8, 9], None).unwrap();
    assert_eq!([e.hram(0)[0], e.hram(1)[0], e.hram(2)[0]], [7, 8, 9]);
    e.step(&[7, 7, 7]).unwrap();
    e.set_memory(0xFF04, &[0x55, 0x55, 0x55], Some(&[true, false, false]))
        .unwrap();
    assert_eq!(e.peek(0, 0xFF04), 0);
    assert_ne!(e.peek(1, 0xFF04), 0);
    for (values, mask) in [
        (&[1u8, 2][..], None),
        (&[][..], None),
        (&[1, 2, 3], Some(&[true, false][..])),
    ] {
        let err = e.set_memory(0xC000, values, mask).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    let err = e.set_memory(0xFFFF, &[1, 2, 3, 4, 5, 6], None).unwrap_err();
    assert!(err.to_string().contains("run past 0xFFFF"), "{err}");
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

#[test]
fn out_of_range_actions_step_nothing() {
    let mut e = VecEngine::new(shared(&joypad_rom()), 3, config(2)).unwrap();
    let before = fingerprint(&e);
    for actions in [&[0u8, 8, 0][..], &[255, 0, 0], &[0, 0], &[0, 0, 0, 0]] {
        let err = e.step(actions).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    let msg = e.step(&[0, 0, 9]).unwrap_err().to_string();
    assert!(
        msg.contains("action 9 of env 2") && msg.contains("0..=7"),
        "{msg}"
    );
    assert!(fingerprint(&e) == before, "nothing was stepped");
    assert_eq!(e.frame_count(0), 0);
    // Without a table every byte is a bitmask.
    let mut raw = VecEngine::new(
        shared(&joypad_rom()),
        3,
        VecConfig {
            action_table: None,
            ..config(1)
        },
    )
    .unwrap();
    raw.step(&[255, 0, 17]).unwrap();
    assert_eq!(raw.frame_count(2), 24);
}

#[test]
fn bad_configurations_are_refused() {
    let rom = shared(&joypad_rom());
    let bad = |n: usize, c: VecConfig| match VecEngine::new(rom.clone(), n, c) {
        Err(Error::InvalidArgument(m)) => m,
        Err(e) => panic!("wrong error {e:?}"),
        Ok(_) => panic!("accepted"),
    };
    assert!(bad(0, config(1)).contains("num_envs"));
    assert!(bad(65_537, config(1)).contains("num_envs"));
    let c = |f: fn(&mut VecConfig)| {
        let mut c = config(1);
        f(&mut c);
        c
    };
    assert!(bad(1, c(|c| c.frame_skip = 0)).contains("frame_skip"));
    assert!(bad(1, c(|c| c.hold_frames = 25)).contains("hold_frames"));
    assert!(bad(1, c(|c| c.frame_stack = 0)).contains("frame_stack"));
    assert!(bad(1, c(|c| c.num_threads = 100_000)).contains("num_threads"));
    assert!(bad(1, c(|c| c.action_table = Some(vec![]))).contains("action table"));
    assert!(bad(1, c(|c| c.action_table = Some(vec![0; 257]))).contains("action table"));
    // A ROM error is the core's.
    assert!(matches!(
        VecEngine::new(shared(&[0u8; 16]), 1, config(1)),
        Err(Error::InvalidRom(_))
    ));
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

/// `bytes_per_env` against the heap the engine really allocates per env
/// (the difference between an engine of 2n and one of n envs, divided by n).
#[test]
fn bytes_per_env_matches_the_allocations() {
    let rom = shared(&joypad_rom());
    // The ROM's code (bytes and run table) is shared by every machine built
    // from the same bytes, other tests' running in parallel included: keep
    // one alive, so that neither engine below builds it and the other not.
    let _code = VecEngine::new(rom.clone(), 1, config(1)).unwrap();
    for (obs, addresses) in [
        (ObsMode::Gray, 0),
        (ObsMode::Rgb, 16),
        (ObsMode::GrayHalf, 3),
    ] {
        let cfg = VecConfig {
            obs,
            ram_addresses: vec![0xC000; addresses],
            ..config(1)
        };
        let heap_of = |n: usize| {
            let before = live_bytes();
            let e = VecEngine::new(rom.clone(), n, cfg.clone()).unwrap();
            let used = live_bytes() - before;
            (used, e.bytes_per_env())
        };
        let (small, reported) = heap_of(16);
        let (large, reported_large) = heap_of(48);
        assert_eq!(reported, reported_large);
        let per_env = (large - small) as f64 / 32.0;
        let ratio = reported as f64 / per_env;
        assert!(
            (0.98..=1.02).contains(&ratio),
            "{obs:?}: bytes_per_env {reported}, measured {per_env:.0} per env"
        );
        eprintln!("{obs:?}: bytes_per_env {reported}, measured {per_env:.0}");
    }
}

// ---------------------------------------------------------------------------
// Boot ROMs, sealed states, watched (interruptible) steps
// ---------------------------------------------------------------------------

/// A 256-byte boot ROM that never hands over (`JR -2` at 0x0000), with a tag
/// byte that tells two of them apart.
fn endless_boot_rom(tag: u8) -> Vec<u8> {
    let mut boot = vec![0u8; 256];
    boot[..2].copy_from_slice(&[0x18, 0xFE]);
    boot[255] = tag;
    boot
}

fn booting(boot: Option<Vec<u8>>, num_threads: usize) -> VecEngine {
    VecEngine::new(
        shared(&joypad_rom()),
        2,
        VecConfig {
            boot_rom: boot,
            ..config(num_threads)
        },
    )
    .unwrap()
}

#[test]
fn every_way_into_an_env_checks_the_boot_rom() {
    let mut with_a = booting(Some(endless_boot_rom(1)), 1);
    with_a.step(&[0, 0]).unwrap(); // still in the boot ROM (it never ends)
    let snap = with_a.snapshot(0).unwrap();
    let state = with_a.save_state(0).unwrap();
    for other_boot in [None, Some(endless_boot_rom(2))] {
        let mut other = booting(other_boot.clone(), 1);
        let before = other.save_state(1).unwrap();
        let restored = other.restore(1, &snap);
        assert!(
            matches!(&restored, Err(Error::InvalidState(m)) if m.contains("boot ROM")),
            "{restored:?}"
        );
        let loaded = other.load_state(1, &state);
        assert!(
            matches!(&loaded, Err(Error::InvalidState(m)) if m.contains("boot ROM")),
            "{loaded:?}"
        );
        assert!(
            other.save_state(1).unwrap() == before,
            "a refused restore changed the env"
        );
        let initial = VecEngine::new(
            shared(&joypad_rom()),
            1,
            VecConfig {
                initial_snapshot: Some(snap.clone()),
                boot_rom: other_boot.clone(),
                ..config(1)
            },
        );
        assert!(matches!(initial, Err(Error::InvalidState(_))));
        let initial = VecEngine::new(
            shared(&joypad_rom()),
            1,
            VecConfig {
                initial_state: Some(state.clone()),
                boot_rom: other_boot.clone(),
                ..config(1)
            },
        );
        assert!(matches!(initial, Err(Error::InvalidState(_))));
    }
    // The same boot ROM: both ways in work, and the env goes on identically.
    let mut same = booting(Some(endless_boot_rom(1)), 1);
    same.restore(0, &snap).unwrap();
    same.load_state(1, &state).unwrap();
    assert!(same.save_state(0).unwrap() == state);
    assert!(same.save_state(1).unwrap() == state);
}

#[test]
fn a_snapshot_after_boot_takes_the_engines_own_boot_rom() {
    // A snapshot whose boot ROM has handed over carries no boot ROM into the
    // env: a state saved mid-boot by the engine's own boot ROM still loads.
    let rom = joypad_rom();
    let mut boot = vec![0u8; 256];
    // LD A,1; LDH [0x50],A at 0x00FC..: the boot ROM hands over at once.
    boot[0xFC..].copy_from_slice(&[0x3E, 0x01, 0xE0, 0x50]);
    let mut done = VecEngine::new(
        shared(&rom),
        1,
        VecConfig {
            boot_rom: Some(boot),
            ..config(1)
        },
    )
    .unwrap();
    done.step(&[0]).unwrap();
    let after_boot = done.snapshot(0).unwrap();
    let mut e = booting(Some(endless_boot_rom(1)), 1);
    let mid_boot = e.save_state(1).unwrap();
    e.restore(0, &after_boot).unwrap();
    e.load_state(0, &mid_boot).unwrap();
    assert!(e.save_state(0).unwrap() == mid_boot);
}

#[test]
fn a_corrupted_state_is_refused_whole() {
    let mut e = run_engine(&joypad_rom(), 1, 5);
    let state = e.save_state(3).unwrap();
    let before = e.save_state(0).unwrap();
    // Every bit of a sample of bytes across the whole state (header, RAM,
    // VRAM, registers, cartridge RAM, the checksum itself).
    let mut flips = 0;
    for pos in (0..state.len()).step_by(61).chain([state.len() - 1]) {
        for bit in 0..8 {
            let mut bad = state.clone();
            bad[pos] ^= 1 << bit;
            let err = e.load_state(0, &bad);
            assert!(
                matches!(err, Err(Error::InvalidState(_))),
                "byte {pos} bit {bit} of {}: {err:?}",
                state.len()
            );
            flips += 1;
        }
    }
    assert!(flips > 2000);
    assert!(e.save_state(0).unwrap() == before);
    e.load_state(0, &state).unwrap();
    assert!(e.save_state(0).unwrap() == state);
    // Edited on purpose and sealed again (what verification tooling does),
    // it loads with the edit: here the first WRAM byte (0xC000).
    assert_eq!(emurust::state::reseal(&state).unwrap(), state);
    let at = state.windows(4).position(|w| w == b"RAM ").unwrap() + 8;
    let mut edited = state.clone();
    edited[at] = !state[at];
    assert!(e.load_state(0, &edited).is_err());
    e.load_state(0, &emurust::state::reseal(&edited).unwrap())
        .unwrap();
    assert_eq!(e.rams()[0][0], !state[at]);
}

#[test]
fn an_unstopped_watched_step_equals_a_plain_one() {
    for threads in [1, 2] {
        let mut plain = run_engine(&joypad_rom(), threads, 0);
        let mut watched = run_engine(&joypad_rom(), threads, 0);
        let mut calls = 0;
        for s in 0..6 {
            let acts = actions_at(s, 8, DEFAULT_ACTIONS.len());
            plain.step(&acts).unwrap();
            let end = watched
                .step_watched(
                    &acts,
                    None,
                    None,
                    None,
                    &mut || {
                        calls += 1;
                        false
                    },
                    std::time::Duration::ZERO,
                )
                .unwrap();
            assert_eq!(end, emurust::vec::StepEnd::Done);
        }
        assert!(
            fingerprint(&plain) == fingerprint(&watched),
            "{threads} threads"
        );
        if threads == 1 {
            // Asked between frames when stepping in the calling thread.
            assert!(calls >= 6 * 8 * 24, "{calls} calls");
        }
    }
}

#[test]
fn a_stopped_step_leaves_every_env_at_a_frame_boundary() {
    use emurust::vec::{StepEnd, StepProgress};
    for threads in [1, 2] {
        let mut e = run_engine(&joypad_rom(), threads, 1);
        let before = fingerprint(&e);
        let frames_before: Vec<u64> = (0..8).map(|i| frame_count(&e, i)).collect();
        // Stop as soon as asked (after `interval` = 0 in the calling thread,
        // after the first wait when workers step).
        let acts = actions_at(1, 8, DEFAULT_ACTIONS.len());
        let end = e
            .step_watched(
                &acts,
                None,
                None,
                None,
                &mut || true,
                std::time::Duration::ZERO,
            )
            .unwrap();
        let StepEnd::Stopped(p) = end else {
            // With workers, a step may finish before the first wake-up.
            assert!(threads > 1, "{end:?}");
            continue;
        };
        assert_eq!(p.finished + p.partial + p.not_started, 8, "{p:?}");
        if threads == 1 {
            // Asked before the first frame of the first env: nothing ran.
            assert_eq!(
                p,
                StepProgress {
                    finished: 0,
                    partial: 0,
                    not_started: 8
                }
            );
            assert!(fingerprint(&e) == before);
        }
        for (i, &f) in frames_before.iter().enumerate() {
            let ran = frame_count(&e, i) - f;
            assert!(ran <= 24, "env {i} ran {ran} frames");
        }
        // The RAM rows were not gathered again.
        assert_eq!(e.ram(), &before.1[..]);
        // The batch carries on: a full step afterwards works.
        e.step(&acts).unwrap();
    }
}

fn frame_count(e: &VecEngine, i: usize) -> u64 {
    e.snapshot(i).unwrap().frame_count()
}

#[test]
fn a_batch_too_large_for_memory_is_refused_before_anything_is_built() {
    // The probe asks for every env's memory at once (here about 290 GB): it
    // fails cleanly with the size in the message. Where the kernel promises
    // any amount (overcommit mode 1) the probe cannot fail: nothing to test.
    if std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "1") {
        return;
    }
    let err = VecEngine::new(
        shared(&joypad_rom()),
        emurust::vec::MAX_ENVS,
        VecConfig {
            obs: ObsMode::Rgb,
            frame_stack: emurust::vec::MAX_FRAME_STACK,
            ..config(1)
        },
    );
    match err {
        Err(Error::OutOfMemory(m)) => assert!(m.contains("MiB"), "{m}"),
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("290 GB of envs were built"),
    }
}
