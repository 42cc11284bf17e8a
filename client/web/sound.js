// Short sounds made on the spot with the Web Audio API (no sound files): a card put down, a
// deal, a refused move and a win. Browsers let a page start audio only after a person's gesture,
// so the AudioContext is made at the first tap or key press (when Sounds is on), and nothing
// plays before. The Sounds setting (settings.js) turns them all off.

import { store } from "./store.js";

let context = null;
let noise = null; // one second of white noise, shared by every sound that needs some

/** Start audio (within a person's gesture: the first tap or key, or turning Sounds on). */
export function startAudio() {
  if (!store.sounds) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume().catch(() => {});
  } catch (err) {
    context = null; // no audio on this machine: the page stays silent
  }
}

// The first gesture (and any later one, should the browser suspend the context again).
for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, startAudio, { capture: true, passive: true });

function noiseBuffer() {
  if (!noise) {
    noise = context.createBuffer(1, context.sampleRate, context.sampleRate);
    const data = noise.getChannelData(0);
    let seed = 7; // (a fixed sequence: the same sound every time)
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      data[i] = (seed / 0x3fffffff) - 1;
    }
  }
  return noise;
}

/** A burst of filtered noise `at` seconds from now: the slap of a card on the felt. */
function slap(at, { length = 0.07, pitch = 1800, volume = 0.35 } = {}) {
  const source = context.createBufferSource();
  source.buffer = noiseBuffer();
  const filter = context.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = pitch;
  filter.Q.value = 0.9;
  const gain = context.createGain();
  const t = context.currentTime + at;
  gain.gain.setValueAtTime(volume, t);
  gain.gain.exponentialRampToValueAtTime(0.001, t + length);
  source.connect(filter).connect(gain).connect(context.destination);
  source.start(t, Math.random() * 0.5, length + 0.02);
}

/** A tone `at` seconds from now. */
function tone(at, frequency, { length = 0.16, type = "triangle", volume = 0.18, slide = 0 } = {}) {
  const osc = context.createOscillator();
  osc.type = type;
  const gain = context.createGain();
  const t = context.currentTime + at;
  osc.frequency.setValueAtTime(frequency, t);
  if (slide) osc.frequency.exponentialRampToValueAtTime(frequency * slide, t + length);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(volume, t + 0.012);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
  osc.connect(gain).connect(context.destination);
  osc.start(t);
  osc.stop(t + length + 0.02);
}

const SOUNDS = {
  move: () => slap(0),
  collect: () => slap(0, { length: 0.05, pitch: 2600, volume: 0.25 }),
  deal: () => { slap(0, { pitch: 2400, volume: 0.3 }); slap(0.06, { pitch: 2100, volume: 0.3 }); },
  refuse: () => { tone(0, 330, { type: "square", volume: 0.07, length: 0.09 }); tone(0.1, 247, { type: "square", volume: 0.07, length: 0.14 }); },
  win: () => [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => tone(i * 0.11, f, { length: i === 3 ? 0.6 : 0.22, volume: 0.16 })),
};

/** Play sound `kind` (move, collect, deal, refuse, win) if Sounds is on and audio has started. */
export function sound(kind) {
  if (!store.sounds || !context || context.state !== "running") return;
  try {
    SOUNDS[kind]();
  } catch (err) { /* a sound is never worth an error */ }
}
