//! Mooneye Test Suite (DMG): one test per ROM. A ROM passes when it ends with
//! B,C,D,E,H,L = 3,5,8,13,21,34. Known failures are `#[ignore]`d with the reason.
mod common;

macro_rules! mooneye {
    ($($(#[$attr:meta])* $name:ident: $path:expr;)*) => {
        $( #[test] $(#[$attr])* fn $name() { common::run_mooneye($path); } )*
    };
}

mooneye! {
    add_sp_e_timing: "mooneye/acceptance/add_sp_e_timing.gb";
    bits_mem_oam: "mooneye/acceptance/bits/mem_oam.gb";
    bits_unused_hwio_gs: "mooneye/acceptance/bits/unused_hwio-GS.gb";
    boot_div_dmg_abc_mgb: "mooneye/acceptance/boot_div-dmgABCmgb.gb";
    boot_hwio_dmg_abc_mgb: "mooneye/acceptance/boot_hwio-dmgABCmgb.gb";
    boot_regs_dmg_abc: "mooneye/acceptance/boot_regs-dmgABC.gb";
    call_cc_timing: "mooneye/acceptance/call_cc_timing.gb";
    call_cc_timing2: "mooneye/acceptance/call_cc_timing2.gb";
    call_timing2: "mooneye/acceptance/call_timing2.gb";
    di_timing_gs: "mooneye/acceptance/di_timing-GS.gb";
    div_timing: "mooneye/acceptance/div_timing.gb";
    ei_timing: "mooneye/acceptance/ei_timing.gb";
    halt_ime0_ei: "mooneye/acceptance/halt_ime0_ei.gb";
    halt_ime0_nointr_timing: "mooneye/acceptance/halt_ime0_nointr_timing.gb";
    halt_ime1_timing2_gs: "mooneye/acceptance/halt_ime1_timing2-GS.gb";
    if_ie_registers: "mooneye/acceptance/if_ie_registers.gb";
    interrupts_ie_push: "mooneye/acceptance/interrupts/ie_push.gb";
    intr_timing: "mooneye/acceptance/intr_timing.gb";
    jp_cc_timing: "mooneye/acceptance/jp_cc_timing.gb";
    jp_timing: "mooneye/acceptance/jp_timing.gb";
    ld_hl_sp_e_timing: "mooneye/acceptance/ld_hl_sp_e_timing.gb";
    oam_dma_reg_read: "mooneye/acceptance/oam_dma/reg_read.gb";
    oam_dma_sources_gs: "mooneye/acceptance/oam_dma/sources-GS.gb";
    oam_dma_restart: "mooneye/acceptance/oam_dma_restart.gb";
    oam_dma_start: "mooneye/acceptance/oam_dma_start.gb";
    oam_dma_timing: "mooneye/acceptance/oam_dma_timing.gb";
    pop_timing: "mooneye/acceptance/pop_timing.gb";
    push_timing: "mooneye/acceptance/push_timing.gb";
    rapid_di_ei: "mooneye/acceptance/rapid_di_ei.gb";
    ret_cc_timing: "mooneye/acceptance/ret_cc_timing.gb";
    ret_timing: "mooneye/acceptance/ret_timing.gb";
    reti_intr_timing: "mooneye/acceptance/reti_intr_timing.gb";
    reti_timing: "mooneye/acceptance/reti_timing.gb";
    rst_timing: "mooneye/acceptance/rst_timing.gb";
    serial_boot_sclk_align_dmg_abc_mgb: "mooneye/acceptance/serial/boot_sclk_align-dmgABCmgb.gb";
    timer_rapid_toggle: "mooneye/acceptance/timer/rapid_toggle.gb";
    timer_tim00: "mooneye/acceptance/timer/tim00.gb";
    timer_tim00_div_trigger: "mooneye/acceptance/timer/tim00_div_trigger.gb";
    timer_tim01_div_trigger: "mooneye/acceptance/timer/tim01_div_trigger.gb";
    timer_tim10: "mooneye/acceptance/timer/tim10.gb";
    timer_tim10_div_trigger: "mooneye/acceptance/timer/tim10_div_trigger.gb";
    timer_tim11: "mooneye/acceptance/timer/tim11.gb";
    timer_tim11_div_trigger: "mooneye/acceptance/timer/tim11_div_trigger.gb";
    timer_tima_write_reloading: "mooneye/acceptance/timer/tima_write_reloading.gb";
    timer_tma_write_reloading: "mooneye/acceptance/timer/tma_write_reloading.gb";
    ppu_hblank_ly_scx_timing_gs: "mooneye/acceptance/ppu/hblank_ly_scx_timing-GS.gb";
    ppu_intr_1_2_timing_gs: "mooneye/acceptance/ppu/intr_1_2_timing-GS.gb";
    ppu_intr_2_0_timing: "mooneye/acceptance/ppu/intr_2_0_timing.gb";
    ppu_intr_2_mode0_timing_sprites: "mooneye/acceptance/ppu/intr_2_mode0_timing_sprites.gb";
    ppu_intr_2_mode3_timing: "mooneye/acceptance/ppu/intr_2_mode3_timing.gb";
    ppu_intr_2_oam_ok_timing: "mooneye/acceptance/ppu/intr_2_oam_ok_timing.gb";
    ppu_lcdon_timing_gs: "mooneye/acceptance/ppu/lcdon_timing-GS.gb";
    ppu_lcdon_write_timing_gs: "mooneye/acceptance/ppu/lcdon_write_timing-GS.gb";
    ppu_stat_irq_blocking: "mooneye/acceptance/ppu/stat_irq_blocking.gb";
    ppu_stat_lyc_onoff: "mooneye/acceptance/ppu/stat_lyc_onoff.gb";
    ppu_vblank_stat_intr_gs: "mooneye/acceptance/ppu/vblank_stat_intr-GS.gb";
    mbc1_bits_bank1: "mooneye/emulator-only/mbc1/bits_bank1.gb";
    mbc1_bits_bank2: "mooneye/emulator-only/mbc1/bits_bank2.gb";
    mbc1_bits_mode: "mooneye/emulator-only/mbc1/bits_mode.gb";
    mbc1_bits_ramg: "mooneye/emulator-only/mbc1/bits_ramg.gb";
    mbc1_multicart_rom_8mb: "mooneye/emulator-only/mbc1/multicart_rom_8Mb.gb";
    mbc1_ram_256kb: "mooneye/emulator-only/mbc1/ram_256kb.gb";
    mbc1_ram_64kb: "mooneye/emulator-only/mbc1/ram_64kb.gb";
    mbc1_rom_16mb: "mooneye/emulator-only/mbc1/rom_16Mb.gb";
    mbc1_rom_1mb: "mooneye/emulator-only/mbc1/rom_1Mb.gb";
    mbc1_rom_2mb: "mooneye/emulator-only/mbc1/rom_2Mb.gb";
    mbc1_rom_4mb: "mooneye/emulator-only/mbc1/rom_4Mb.gb";
    mbc1_rom_512kb: "mooneye/emulator-only/mbc1/rom_512kb.gb";
    mbc1_rom_8mb: "mooneye/emulator-only/mbc1/rom_8Mb.gb";
    mbc2_bits_ramg: "mooneye/emulator-only/mbc2/bits_ramg.gb";
    mbc2_bits_romb: "mooneye/emulator-only/mbc2/bits_romb.gb";
    mbc2_bits_unused: "mooneye/emulator-only/mbc2/bits_unused.gb";
    mbc2_ram: "mooneye/emulator-only/mbc2/ram.gb";
    mbc2_rom_1mb: "mooneye/emulator-only/mbc2/rom_1Mb.gb";
    mbc2_rom_2mb: "mooneye/emulator-only/mbc2/rom_2Mb.gb";
    mbc2_rom_512kb: "mooneye/emulator-only/mbc2/rom_512kb.gb";
    mbc5_rom_16mb: "mooneye/emulator-only/mbc5/rom_16Mb.gb";
    mbc5_rom_1mb: "mooneye/emulator-only/mbc5/rom_1Mb.gb";
    mbc5_rom_2mb: "mooneye/emulator-only/mbc5/rom_2Mb.gb";
    mbc5_rom_32mb: "mooneye/emulator-only/mbc5/rom_32Mb.gb";
    mbc5_rom_4mb: "mooneye/emulator-only/mbc5/rom_4Mb.gb";
    mbc5_rom_512kb: "mooneye/emulator-only/mbc5/rom_512kb.gb";
    mbc5_rom_64mb: "mooneye/emulator-only/mbc5/rom_64Mb.gb";
    mbc5_rom_8mb: "mooneye/emulator-only/mbc5/rom_8Mb.gb";
    samesuite_ei_delay_halt: "samesuite/interrupt/ei_delay_halt.gb";
}
