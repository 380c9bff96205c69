#!/usr/bin/env python3
"""Writes the example game's sounds (16-bit mono WAV, 22.05 kHz) from formulas: nothing
recorded, nothing downloaded. The files and this script are CC0 (public domain).
Run from this folder: python3 generate.py"""
import math
import random
import struct
import wave

RATE = 22050


def write(name, samples):
    with wave.open(name, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(s * 32767)))) for s in samples))


def fire():
    # A launcher's thump: a falling tone under a burst of noise, decaying in 0.25 s.
    rng = random.Random(1)
    out = []
    for i in range(int(RATE * 0.25)):
        t = i / RATE
        env = math.exp(-t * 18)
        tone = math.sin(2 * math.pi * (220 - 400 * t) * t)
        out.append(0.8 * env * (0.6 * tone + 0.4 * rng.uniform(-1, 1)))
    return out


def explosion():
    # Low rumbling noise, 0.8 s, smoothed by a one-pole low-pass.
    rng = random.Random(2)
    out, y = [], 0.0
    for i in range(int(RATE * 0.8)):
        t = i / RATE
        y += 0.08 * (rng.uniform(-1, 1) - y)
        out.append(3.0 * y * math.exp(-t * 4))
    return out


def pickup():
    # A rising two-note chime, 0.3 s.
    out = []
    for i in range(int(RATE * 0.3)):
        t = i / RATE
        f = 880 if t < 0.12 else 1320
        out.append(0.5 * math.exp(-((t % 0.12) * 10)) * math.sin(2 * math.pi * f * t))
    return out


def click():
    # A button's hover tick: 25 ms of a fast-decaying 2 kHz tone.
    return [0.4 * math.exp(-i / RATE * 200) * math.sin(2 * math.pi * 2000 * i / RATE) for i in range(int(RATE * 0.025))]


def engine():
    # A skimmer's engine hum, 1 s that loops seamlessly (whole cycles of 60 Hz and its
    # harmonics, a 4 Hz throb).
    out = []
    for i in range(RATE):
        t = i / RATE
        hum = sum(math.sin(2 * math.pi * 60 * k * t) / k for k in (1, 2, 3, 5))
        out.append(0.3 * hum * (0.8 + 0.2 * math.sin(2 * math.pi * 4 * t)))
    return out


def step():
    # A footstep: 60 ms of low-passed noise, quickly damped.
    rng = random.Random(3)
    out, y = [], 0.0
    for i in range(int(RATE * 0.06)):
        y += 0.2 * (rng.uniform(-1, 1) - y)
        out.append(2.0 * y * math.exp(-i / RATE * 60))
    return out


def splash():
    # A splash: 0.5 s of noise, brighter at first and darkening as it falls, with a few
    # bubbling blips.
    rng = random.Random(4)
    out, y = [], 0.0
    for i in range(int(RATE * 0.5)):
        t = i / RATE
        y += (0.6 - t) * (rng.uniform(-1, 1) - y)
        blip = 0.2 * math.exp(-((t * 12) % 1) * 8) * math.sin(2 * math.pi * (600 + 400 * t) * t)
        out.append((1.2 * y + blip) * math.exp(-t * 6))
    return out


def menu():
    # The main menu's music: 12.5 s of a plucked A-major arpeggio over a slow pad, written as
    # menu.wav and encoded with `oggenc -q 0 -o menu.ogg menu.wav` (vorbis-tools), then removed.
    notes = [220.0, 277.18, 329.63, 440.0, 329.63, 277.18]
    out, beat = [], 0.5
    for i in range(int(RATE * 12.5)):
        t = i / RATE
        k = int(t / beat)
        f = notes[k % len(notes)] * (1 if (k // 12) % 2 == 0 else 0.75)
        env = math.exp(-(t - k * beat) * 4) * 0.35
        pad = 0.12 * math.sin(2 * math.pi * 110 * t) * (0.5 + 0.5 * math.sin(2 * math.pi * 0.25 * t))
        out.append(env * math.sin(2 * math.pi * f * t) + pad)
    return out


if __name__ == "__main__":
    write("fire.wav", fire())
    write("explosion.wav", explosion())
    write("pickup.wav", pickup())
    write("click.wav", click())
    write("engine.wav", engine())
    write("step.wav", step())
    write("splash.wav", splash())
    write("menu.wav", menu())
    import os
    import subprocess
    subprocess.run(["oggenc", "-Q", "-q", "0", "-o", "menu.ogg", "menu.wav"], check=True)
    os.remove("menu.wav")
