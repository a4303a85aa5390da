//! The SingleStepTests `sm83` v1 vector files (`$EMURUST_ROMS/sm83-json/v1`)
//! as the two harnesses read them: `tests/sm83_vectors.rs` (the
//! interpreter) and `tests/jit_vectors.rs` (the compiled path).

use flate2::read::GzDecoder;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The vector files: one per legal opcode (`cb xx` included), 1000 cases each.
pub const FILES: usize = 500;
pub const CASES_PER_FILE: usize = 1000;

/// One M-cycle of a vector's bus activity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read(u16, u8),
    Write(u16, u8),
    Idle,
}

pub fn num(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("missing or non-integer field {key:?}"))
}

/// A state's registers: A, F, B, C, D, E, H, L; SP; PC.
pub fn registers(s: &Value) -> Result<([u8; 8], u16, u16), String> {
    let mut r = [0u8; 8];
    for (slot, key) in r.iter_mut().zip(["a", "f", "b", "c", "d", "e", "h", "l"]) {
        *slot = num(s, key)? as u8;
    }
    Ok((r, num(s, "sp")? as u16, num(s, "pc")? as u16))
}

/// A state's listed RAM bytes.
pub fn ram_of(s: &Value) -> Result<Vec<(u16, u8)>, String> {
    let arr = s
        .get("ram")
        .and_then(Value::as_array)
        .ok_or("missing ram")?;
    arr.iter()
        .map(|p| {
            let a = p.get(0).and_then(Value::as_u64).ok_or("bad ram entry")?;
            let v = p.get(1).and_then(Value::as_u64).ok_or("bad ram entry")?;
            Ok((a as u16, v as u8))
        })
        .collect()
}

/// A case's bus activity, one entry per M-cycle.
pub fn cycles_of(case: &Value) -> Result<Vec<Access>, String> {
    let arr = case
        .get("cycles")
        .and_then(Value::as_array)
        .ok_or("missing cycles")?;
    arr.iter()
        .map(|c| {
            let kind = c.get(2).and_then(Value::as_str).ok_or("bad cycle entry")?;
            let addr = c.get(0).and_then(Value::as_u64).map(|x| x as u16);
            let data = c.get(1).and_then(Value::as_u64).map(|x| x as u8);
            match kind {
                "r-m" => Ok(Access::Read(
                    addr.ok_or("read without address")?,
                    data.ok_or("read without data")?,
                )),
                "-wm" => Ok(Access::Write(
                    addr.ok_or("write without address")?,
                    data.ok_or("write without data")?,
                )),
                "---" => Ok(Access::Idle),
                other => Err(format!("unknown cycle kind {other:?}")),
            }
        })
        .collect()
}

/// A vector file: its opcode (the name without `.json.gz`) and its cases.
pub fn read_file(path: &Path) -> Result<(String, Vec<Value>), String> {
    let stem = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".json.gz"))
        .ok_or("bad file name")?
        .to_string();
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut text = String::new();
    GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    let cases: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    match cases {
        Value::Array(cases) => Ok((stem, cases)),
        _ => Err("not a JSON array".into()),
    }
}

/// The suite's files, sorted; `None` (reported as missing, a failure under
/// `EMURUST_REQUIRE_ROMS=1`) where the folder is absent. Panics unless all
/// [`FILES`] are there: a partial suite is not a run of it.
pub fn vector_files() -> Option<Vec<PathBuf>> {
    let dir = super::roms_dir().join("sm83-json").join("v1");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => {
            super::missing(
                &format!("sm83 vectors folder {}", dir.display()),
                &e.to_string(),
            );
            return None;
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".json.gz")))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        FILES,
        "{} holds {} *.json.gz files, the suite has {FILES}",
        dir.display(),
        files.len()
    );
    Some(files)
}

/// The threads [`per_file`] uses.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16)
}

/// `run` on every file, spread over up to 16 threads; results in the
/// files' order.
pub fn per_file<T: Send>(files: &[PathBuf], run: impl Fn(&Path) -> T + Sync) -> Vec<(PathBuf, T)> {
    let chunk = files.len().div_ceil(threads()).max(1);
    let run = &run;
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || part.iter().map(|p| (p.clone(), run(p))).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread panicked"))
            .collect()
    })
}
