"""Tooling for emurust: not part of the emulator's public API."""
