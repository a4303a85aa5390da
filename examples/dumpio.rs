//! Print the I/O registers 0xFF00-0xFF7F as the machine leaves its (emulated)
//! boot, a row of 16 per line: `dumpio ROM`. Used to calibrate post-boot state.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rom = std::fs::read(&args[1]).unwrap();
    let gb = emurust::GameBoy::new(&rom, None).unwrap();
    for row in 0..8u16 {
        let a = 0xFF00 + row * 16;
        let v: Vec<String> = (0..16).map(|i| format!("{:02X}", gb.peek(a + i))).collect();
        println!("{a:04X}: {}", v.join(" "));
    }
}
