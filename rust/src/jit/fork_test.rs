//! The fork rule (module documentation, "Background compiles"): a process
//! forked from the one that made a ROM's compiled code (Python's
//! multiprocessing with the fork start method) keeps running the blocks it
//! inherited, compiles nothing more with that code (its background thread
//! and any compile in progress did not come along), and gets new code, which
//! it compiles, for machines it makes after the fork; the parent goes on
//! compiling as before.
//!
//! The fork happens in a process of its own: the test re-runs this test
//! binary on [`child_side`] alone with one test thread, so that no other test
//! holds a lock (the live-code list, an allocator arena, a Cranelift module)
//! at the moment of the fork. Forking is why this lives in the one module
//! allowed `unsafe`.

use crate::GameBoy;

/// Set for the re-run process that does the fork.
const FORK_SIDE: &str = "EMURUST_JIT_FORK_SIDE";

/// A cartridge with two loops: loop A (0x015A) until work RAM's 0xC100 is
/// non-zero, then loop B (0x0203), which the parent never runs before the
/// fork.
fn rom() -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x104].copy_from_slice(&[0x00, 0xC3, 0x50, 0x01]); // nop; jp $0150
    #[rustfmt::skip]
    let a = [
        0x31, 0xFE, 0xDF, //       ld sp,$DFFE
        0xAF, //                   xor a
        0xEA, 0x00, 0xC1, //       ld ($C100),a
        0x21, 0x00, 0xC0, //       ld hl,$C000
        0x34, //             $015A inc (hl)
        0x7E, //                   ld a,(hl)
        0x80, //                   add a,b
        0x47, //                   ld b,a
        0xFA, 0x00, 0xC1, //       ld a,($C100)
        0xB7, //                   or a
        0xCA, 0x5A, 0x01, //       jp z,$015A
        0xC3, 0x00, 0x02, //       jp $0200
    ];
    rom[0x150..0x150 + a.len()].copy_from_slice(&a);
    #[rustfmt::skip]
    let b = [
        0x21, 0x00, 0xC8, //       ld hl,$C800
        0x34, //             $0203 inc (hl)
        0x7E, //                   ld a,(hl)
        0xA9, //                   xor c
        0x4F, //                   ld c,a
        0x2C, //                   inc l
        0xC3, 0x03, 0x02, //       jp $0203
    ];
    rom[0x200..0x200 + b.len()].copy_from_slice(&b);
    rom
}

const LOOP_A: u16 = 0x015A;
const LOOP_B: u16 = 0x0203;

/// A machine whose code is compiled on this thread at the first look.
fn eager(rom: &[u8]) -> GameBoy {
    let gb = GameBoy::new(rom, None).expect("the test ROM loads");
    gb.set_jit_background(false);
    gb.set_jit_hot(0);
    gb
}

fn compiled(gb: &GameBoy) -> u64 {
    gb.jit_stats().expect("the JIT is on").compiled
}

/// What the forked child checks; an error says what went wrong.
fn child_checks(rom: &[u8], jit: &mut GameBoy, interp: &mut GameBoy) -> Result<(), String> {
    let before = compiled(jit);
    // On to loop B, which nothing compiled yet.
    for gb in [&mut *jit, &mut *interp] {
        gb.poke(0xC100, 1);
        gb.run_frames(3, false);
    }
    if jit.peek(0xC800) == 0 {
        return Err("loop B never ran".into());
    }
    if compiled(jit) != before || jit.jit_blocks_at(LOOP_B) != 0 {
        return Err(format!(
            "the child compiled with the parent's code: {} blocks before, {} after, {} at loop B",
            before,
            compiled(jit),
            jit.jit_blocks_at(LOOP_B)
        ));
    }
    if jit.save_state() != interp.save_state() {
        return Err("the inherited blocks and the interpreter disagree after the fork".into());
    }
    // A machine made in the child gets code of its own (nothing compiled
    // in it yet), and compiles it: loop A, then loop B.
    let mut fresh = eager(rom);
    if compiled(&fresh) != 0 {
        return Err(format!(
            "a machine made after the fork got the parent's code: {:?}",
            fresh.jit_stats()
        ));
    }
    fresh.run_frames(2, false);
    fresh.poke(0xC100, 1);
    fresh.run_frames(2, false);
    if fresh.jit_blocks_at(LOOP_A) != 1 || fresh.jit_blocks_at(LOOP_B) != 1 {
        return Err(format!(
            "a machine made after the fork did not compile its loops: {:?}",
            fresh.jit_stats()
        ));
    }
    Ok(())
}

/// Runs in the re-run process (see the module documentation): makes the
/// code, forks, checks both sides.
#[test]
#[ignore = "run by a_forked_process_compiles_nothing_more, in a process of its own"]
fn child_side() {
    // It forks, so it must run alone: a_forked_process_compiles_nothing_more
    // runs it so (a run with `--ignored` among other tests fails here
    // rather than reporting a check it did not make).
    assert!(
        std::env::var_os(FORK_SIDE).is_some(),
        "{FORK_SIDE} not set: this test forks and runs alone, through \
         a_forked_process_compiles_nothing_more"
    );
    let rom = rom();
    let mut jit = eager(&rom);
    // As tests/jit.rs: with EMURUST_JIT=0 or no backend there is nothing to
    // test, which fails rather than passes.
    assert!(
        jit.jit_stats().is_some(),
        "the JIT is off (EMURUST_JIT=0 or no Cranelift backend)"
    );
    let mut interp = eager(&rom);
    interp.set_jit(false);
    for gb in [&mut jit, &mut interp] {
        gb.run_frames(3, false);
    }
    assert_eq!(jit.jit_blocks_at(LOOP_A), 1, "{:?}", jit.jit_stats());
    assert_eq!(jit.jit_blocks_at(LOOP_B), 0);

    // SAFETY: this process runs this test alone on one test thread (the
    // re-run's `--exact --test-threads=1`), and the code was compiled on
    // this thread (no background compiler was started: `eager`), so no
    // other thread holds a lock the child needs. The child never returns
    // into the test harness: every path out of it is `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            child_checks(&rom, &mut jit, &mut interp)
        }));
        let code = match checked {
            Ok(Ok(())) => 0,
            Ok(Err(why)) => {
                eprintln!("forked child: {why}");
                1
            }
            Err(_) => 2,
        };
        // SAFETY: ends the forked child at once, without running the
        // parent's exit handlers or returning into the harness.
        unsafe { libc::_exit(code) };
    }
    let start = std::time::Instant::now();
    let status = loop {
        let mut status = 0;
        // SAFETY: waits for our own child, `status` is a valid out-pointer.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(got >= 0, "waitpid failed");
        if got == pid {
            break status;
        }
        if start.elapsed().as_secs() > 120 {
            // SAFETY: kills and reaps our own child, which hung.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            panic!("the forked child hung for 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the forked child failed (status {status:#x}; its message is above)"
    );
    // The parent still compiles: loop B gets its block here.
    jit.poke(0xC100, 1);
    jit.run_frames(3, false);
    assert_eq!(jit.jit_blocks_at(LOOP_B), 1, "{:?}", jit.jit_stats());
    println!("fork side: checked");
}

#[test]
fn a_forked_process_compiles_nothing_more() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([
            "jit::fork_test::child_side",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FORK_SIDE, "1")
        .output()
        .expect("re-run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("fork side: checked"), "{stdout}\n{stderr}");
}
