//! V12's sound from script, on the `v12-audio` crate: the AudioDescription, AudioProfile and
//! AudioEnvironment classes (datablocks, sent to clients like every datablock, and plain
//! client-side objects alike), the `alx*` console functions, and the process's one sound
//! device (null, WAV capture or the sound card) that every client mode advances.
//!
//! Bad input is a console warning or error naming the thing, never a panic: an unknown
//! profile or description, a missing, truncated or corrupt file (silence), a dead handle, an
//! unknown `AL_*` name, junk numbers (a datablock's are checked on definition, as the other
//! classes' fields: `crate::classes`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

use v12_audio::{Audio, Description, DeviceChoice, Handle, Sound, SourceParam, channel};
use v12_console_vm::{CallArgs, Console, FieldType, ObjectId, Value};
use v12_resource::ResourceManager;

/// Sounds held decoded between plays (by path); past it the oldest go.
const MAX_CACHED: usize = 256;

/// The process's sound: the device and mixer, the files, and the sources that follow objects.
#[derive(Debug)]
pub struct ClientAudio {
    /// The device and its mixer.
    pub audio: Audio,
    resources: Rc<ResourceManager>,
    cache: BTreeMap<String, Rc<Sound>>,
    /// Sources that follow a console object (a ghost's `playAudio` slot): (object, slot).
    pub(crate) followers: BTreeMap<(ObjectId, u32), Handle>,
    /// Each walking ghost's last position and the distance walked since its last footstep.
    steps: BTreeMap<ObjectId, (glam::Vec3, f32)>,
    /// Voice chat: the input, its capture and the speakers heard (`crate::voice`).
    pub voice: crate::voice::ClientVoice,
}

/// The process's sound, shared by the console functions and the loop that advances it.
pub type SharedAudio = Rc<RefCell<ClientAudio>>;

/// Host data of the console object that holds the process's sound (`AudioSystem`).
#[derive(Debug)]
struct AudioHost(SharedAudio);

/// The console object's name.
const HOST_OBJECT: &str = "AudioSystem";

impl ClientAudio {
    /// Switches to another device: the sources are dropped; the channel volumes and the
    /// listener stay.
    pub fn open(&mut self, choice: &DeviceChoice) {
        let _ = self.audio.finish();
        let old = self.audio.mixer();
        let volumes: Vec<f32> = (0..v12_audio::NUM_CHANNELS).filter_map(|c| old.channel_volume(c)).collect();
        let listener = *old.listener();
        self.audio = Audio::open(choice);
        let m = self.audio.mixer_mut();
        for (c, v) in volumes.into_iter().enumerate() {
            m.set_channel_volume(c, v);
        }
        m.set_listener(listener.position, listener.forward, listener.up);
        m.set_listener_gain(listener.gain);
        self.followers.clear();
    }

    /// The sound at `path` (as given, then under `audio/` as Tribes 2's profiles name them),
    /// decoded once and kept.
    pub fn sound(&mut self, path: &str) -> Result<Rc<Sound>, String> {
        let key = path.to_ascii_lowercase();
        if let Some(s) = self.cache.get(&key) {
            return Ok(s.clone());
        }
        let found = v12_audio::load_sound(&self.resources, path).or_else(|e| {
            let alt = format!("audio/{}", path.trim_start_matches('/'));
            if self.resources.search().is_file(&alt) {
                v12_audio::load_sound(&self.resources, &alt)
            } else {
                Err(e)
            }
        });
        let s = found.map_err(|e| e.to_string())?;
        if self.cache.len() >= MAX_CACHED
            && let Some(k) = self.cache.keys().next().cloned()
        {
            self.cache.remove(&k);
        }
        self.cache.insert(key, s.clone());
        Ok(s)
    }

    /// Places the listener: at `eye`, looking along `yaw` (V12's heading: 0 looks along +y).
    pub fn set_listener(&mut self, eye: glam::Vec3, yaw: f32) {
        let (s, c) = yaw.sin_cos();
        self.audio.mixer_mut().set_listener(eye.to_array(), [-s, c, 0.0], [0.0, 0.0, 1.0]);
    }

    /// Mixes `ms` more milliseconds; sources that follow objects move with them first (and
    /// stop when their object is gone).
    pub fn advance(&mut self, con: &Console, ms: u64) {
        self.voice.advance(self.audio.mixer_mut(), &mut self.followers, ms);
        let mut gone = Vec::new();
        for (&(obj, slot), &h) in &self.followers {
            match con.object_data::<crate::state::GhostState>(obj) {
                Some(g) if self.audio.mixer().is_alive(h) => {
                    self.audio.mixer_mut().set_position(h, g.pos.to_array());
                }
                _ => gone.push((obj, slot)),
            }
        }
        for k in gone {
            if let Some(h) = self.followers.remove(&k) {
                self.audio.mixer_mut().stop(h);
            }
        }
        let mut left = ms;
        while left > 0 {
            let step = left.min(u64::from(u32::MAX)) as u32;
            self.audio.advance(step);
            left -= u64::from(step);
        }
    }

    /// Plays `profile` following console object `obj` in `slot` (replacing what played there).
    pub(crate) fn play_following(&mut self, con: &mut Console, obj: ObjectId, slot: u32, profile: ObjectId) {
        self.stop_following(obj, slot);
        let pos = con.object_data::<crate::state::GhostState>(obj).map(|g| g.pos.to_array());
        if let Some(h) = play_profile(con, self, profile, pos, "playAudio") {
            self.followers.insert((obj, slot), h);
        }
    }

    /// Stops what plays in `slot` of console object `obj`.
    pub(crate) fn stop_following(&mut self, obj: ObjectId, slot: u32) {
        if let Some(h) = self.followers.remove(&(obj, slot)) {
            self.audio.mixer_mut().stop(h);
        }
    }

    /// Flushes the device (closes a capture file).
    pub fn finish(&mut self) {
        if let Err(e) = self.audio.finish() {
            tracing::warn!("{e}");
        }
    }
}

/// The process's sound, if [`install`] ran on this console.
pub fn of(con: &Console) -> Option<SharedAudio> {
    let id = con.find_object_str(HOST_OBJECT)?;
    con.object_data::<AudioHost>(id).map(|h| h.0.clone())
}

/// Mixes `ms` more milliseconds of the console's sound (nothing without [`install`]), after
/// the ghosts' own sounds: vehicle engines and footsteps.
pub fn advance(con: &mut Console, ms: u64) {
    if let Some(a) = of(con) {
        let mut au = a.borrow_mut();
        ghost_sounds(con, &mut au);
        au.advance(con, ms);
    }
}

/// The follower slot of a vehicle's engine loop (past the script's [`SOUND_SLOTS`]).
const ENGINE_SLOT: u32 = 1_000;
/// Metres a player walks between footsteps.
const STRIDE: f32 = 1.6;

/// The engine's own sounds of the ghosts a client holds: a vehicle datablock's `engineSound`
/// loops on it, pitched from 0.7 at rest to 1.5 at its `maxForwardSpeed` (30 m/s when
/// unset); a player datablock's `FootSoftSound` plays every [`STRIDE`] metres walked on the
/// level (Tribes 2's field; no surface types here).
fn ghost_sounds(con: &mut Console, au: &mut ClientAudio) {
    let Some(sc) = con.find_object_str("ServerConnection") else { return };
    let Some(ix) = con.object_data::<crate::state::ClientGhostIndex>(sc) else { return };
    let objs: Vec<ObjectId> = ix.by_ghost.values().copied().collect();
    let mut seen = std::collections::BTreeSet::new();
    for obj in objs {
        let Some(g) = con.object_data::<crate::state::GhostState>(obj).cloned() else { continue };
        if g.datablock == 0 || g.hidden {
            continue;
        }
        let engine = con.get_field(g.datablock, "engineSound");
        if !engine.as_text().trim().is_empty()
            && let Some(p) = find_of(con, &engine, "AudioProfile")
        {
            let h = match au.followers.get(&(obj, ENGINE_SLOT)).copied() {
                Some(h) if au.audio.mixer().is_alive(h) => Some(h),
                _ => {
                    au.play_following(con, obj, ENGINE_SLOT, p);
                    au.followers.get(&(obj, ENGINE_SLOT)).copied()
                }
            };
            if let Some(h) = h {
                let top = crate::classes::num_field(con, g.datablock, "maxForwardSpeed")
                    .filter(|v| *v > 0.0)
                    .unwrap_or(30.0) as f32;
                let pitch = 0.7 + 0.8 * (g.vel.length() / top).clamp(0.0, 1.0);
                au.audio.mixer_mut().set_param(h, SourceParam::Pitch, pitch);
            }
        }
        let foot = con.get_field(g.datablock, "FootSoftSound");
        if !foot.as_text().trim().is_empty() {
            seen.insert(obj);
            let (last, walked) = au.steps.get(&obj).copied().unwrap_or((g.pos, 0.0));
            let d = g.pos - last;
            // Walking: on the level (not falling or jetting), not teleported.
            let step = if d.z.abs() < 0.2 && d.length() < 5.0 { walked + d.truncate().length() } else { 0.0 };
            let step = if step >= STRIDE {
                if let Some(p) = find_of(con, &foot, "AudioProfile") {
                    play_profile(con, au, p, Some(g.pos.to_array()), "FootSoftSound");
                }
                step - STRIDE
            } else {
                step
            };
            au.steps.insert(obj, (g.pos, step));
        }
    }
    au.steps.retain(|o, _| seen.contains(o));
}

/// Registers the sound classes, the `alx*` functions and the channel globals
/// (`$DefaultAudioType`, ...), with the null device; [`ClientAudio::open`] picks another.
pub fn install(con: &mut Console, resources: &Rc<ResourceManager>) -> SharedAudio {
    register_classes(con);
    for (name, ch) in channel::NAMES {
        con.set_global(name, ch as i64);
    }
    let shared = Rc::new(RefCell::new(ClientAudio {
        audio: Audio::open(&DeviceChoice::Null),
        resources: resources.clone(),
        cache: BTreeMap::new(),
        followers: BTreeMap::new(),
        steps: BTreeMap::new(),
        voice: crate::voice::ClientVoice::default(),
    }));
    let _ = con.register_class(HOST_OBJECT, "SimObject");
    match con.create_object_with_data(HOST_OBJECT, Some(HOST_OBJECT), Box::new(AudioHost(shared.clone()))) {
        Ok(_) => {}
        Err(e) => tracing::warn!("{HOST_OBJECT}: {e}"),
    }
    register_functions(con, &shared);
    register_voice_functions(con, &shared);
    shared
}

/// The device a client mode opens: `--audio-capture FILE.wav`, else the sound card.
pub fn device_choice(capture: Option<&PathBuf>) -> DeviceChoice {
    match capture {
        Some(p) => DeviceChoice::Capture(p.clone()),
        None => DeviceChoice::Card,
    }
}

fn register_classes(con: &mut Console) {
    // EffectProfile: Tribes 2's force-feedback datablock, which its AudioProfiles name
    // (`effect = ...`); played as a gamepad's rumble (`crate::input_devices`).
    for class in ["AudioDescription", "AudioProfile", "AudioEnvironment", "EffectProfile"] {
        let _ = con.register_class(class, "SimDataBlock");
    }
    // The checked fields (`crate::classes::FIELDS`: junk is reset at definition).
    for f in crate::classes::FIELDS.iter().filter(|f| f.class.starts_with("Audio")) {
        let ty = crate::fields::field_type(con, f.kind);
        con.add_field(f.class, f.name, ty, Value::Empty);
    }
    for (class, field) in [("AudioProfile", "filename"), ("AudioProfile", "description")] {
        con.add_field(class, field, FieldType::String, Value::Empty);
    }
}

/// The name a script would use for `id`.
fn who(con: &Console, id: ObjectId) -> String {
    let name = con.object_name(id);
    if name.is_empty() { id.to_string() } else { name }
}

/// The object `v` names if it is of `class`.
fn find_of(con: &Console, v: &Value, class: &str) -> Option<ObjectId> {
    con.find_object(v).filter(|&id| crate::classes::is_a(con, id, class))
}

/// A number field: its default when unset; junk is a warning naming the object and field.
fn num(con: &mut Console, id: ObjectId, field: &str, default: f64, what: &str) -> f64 {
    let v = con.get_field(id, field);
    let text = v.as_text();
    let t = text.trim();
    if t.is_empty() {
        return default;
    }
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => x,
        _ => {
            let msg =
                format!("{what}: {} field {field} = \"{t}\" is not a number; using {default}", who(con, id));
            con.warn(&msg);
            default
        }
    }
}

fn flag(con: &Console, id: ObjectId, field: &str) -> bool {
    let v = con.get_field(id, field);
    let t = v.as_text();
    let t = t.trim();
    t.eq_ignore_ascii_case("true") || t.parse::<f64>().is_ok_and(|x| x != 0.0)
}

/// An AudioDescription object as the mixer's [`Description`] (sanitised).
pub(crate) fn description(con: &mut Console, id: ObjectId, what: &str) -> Description {
    let d = Description::default();
    let channel = num(con, id, "type", 0.0, what);
    let channel = if (0.0..v12_audio::NUM_CHANNELS as f64).contains(&channel) {
        channel as usize
    } else {
        let msg = format!("{what}: {} type {channel} is not a channel (0 to 31); using 0", who(con, id));
        con.warn(&msg);
        0
    };
    let is_3d = flag(con, id, "is3D");
    Description {
        volume: num(con, id, "volume", 1.0, what) as f32,
        looping: flag(con, id, "isLooping"),
        is_3d,
        reference_distance: num(con, id, "referenceDistance", f64::from(d.reference_distance), what) as f32,
        max_distance: num(con, id, "maxDistance", f64::from(d.max_distance), what) as f32,
        cone_inside_angle: num(con, id, "coneInsideAngle", 360.0, what) as f32,
        cone_outside_angle: num(con, id, "coneOutsideAngle", 360.0, what) as f32,
        cone_outside_volume: num(con, id, "coneOutsideVolume", 1.0, what) as f32,
        channel,
        // Tribes 2's field: how much the environment's reverb hears (3D sounds: all of it).
        environment_level: num(con, id, "environmentLevel", if is_3d { 1.0 } else { 0.0 }, what) as f32,
    }
    .sanitized()
}

/// A profile's file and description, or a console error naming what is missing.
pub(crate) fn profile_parts(
    con: &mut Console,
    profile: ObjectId,
    what: &str,
) -> Option<(String, Description)> {
    let file = con.get_field(profile, "filename").as_text().trim().to_string();
    let desc_name = con.get_field(profile, "description");
    let Some(desc) = find_of(con, &desc_name, "AudioDescription") else {
        let msg = format!(
            "{what}: AudioProfile {} has no AudioDescription \"{}\"",
            who(con, profile),
            desc_name.as_text()
        );
        con.error(&msg);
        return None;
    };
    if file.is_empty() {
        let msg = format!("{what}: AudioProfile {} has no filename", who(con, profile));
        con.error(&msg);
        return None;
    }
    Some((file, description(con, desc, what)))
}

/// Creates (and with `play`, starts) a source for a file played as `desc`.
fn source_for(
    con: &mut Console,
    audio: &mut ClientAudio,
    file: &str,
    desc: &Description,
    pos: Option<[f32; 3]>,
    play: bool,
    what: &str,
) -> Option<Handle> {
    let sound = match audio.sound(file) {
        Ok(s) => s,
        Err(e) => {
            con.warn(&format!("{what}: {e}; no sound"));
            return None;
        }
    };
    let m = audio.audio.mixer_mut();
    let h = m.create_source(sound, desc, pos)?;
    if play {
        m.play(h);
    }
    Some(h)
}

/// Plays a profile (at `pos` when 3D): the handle, or None with a console message.
pub(crate) fn play_profile(
    con: &mut Console,
    audio: &mut ClientAudio,
    profile: ObjectId,
    pos: Option<[f32; 3]>,
    what: &str,
) -> Option<Handle> {
    let (file, desc) = profile_parts(con, profile, what)?;
    // Its EffectProfile (`effect`) rumbles a gamepad when the sound is within its reach.
    let heard = audio.audio.mixer().listener().position;
    let distance = pos.map(|p| (glam::Vec3::from(p) - glam::Vec3::from(heard)).length());
    crate::input_devices::sound_effect(con, profile, distance);
    source_for(con, audio, &file, &desc, pos, true, what)
}

/// Client: plays the AudioProfile named `name` at `pos` (a predicted image's `stateSound`);
/// an unknown name is a log line (the server warned when the image was defined).
pub(crate) fn play_named_at(con: &mut Console, name: &str, pos: [f32; 3]) {
    let Some(p) = find_of(con, &Value::from(name), "AudioProfile") else {
        tracing::debug!(name, "stateSound names no AudioProfile this client holds");
        return;
    };
    play_at(con, p, pos, "stateSound");
}

/// Client: plays AudioProfile datablock `profile` at `pos` (`what` names the sound in a
/// message), when this console has a sound card.
pub(crate) fn play_at(con: &mut Console, profile: ObjectId, pos: [f32; 3], what: &str) {
    let Some(audio) = of(con) else { return };
    play_profile(con, &mut audio.borrow_mut(), profile, Some(pos), what);
}

/// Three numbers from `x, y, z` arguments or one `"x y z"` argument starting at `i`.
fn point_args(a: &CallArgs<'_>, i: usize) -> Option<[f32; 3]> {
    if a.len() >= i + 3 {
        let p = [a.f64(i) as f32, a.f64(i + 1) as f32, a.f64(i + 2) as f32];
        return p.iter().all(|c| c.is_finite()).then_some(p);
    }
    if a.len() == i + 1 {
        let words: Vec<f32> = a.str(i).split_whitespace().filter_map(|w| w.parse().ok()).collect();
        if words.len() >= 3 && words[..3].iter().all(|c| c.is_finite()) {
            return Some([words[0], words[1], words[2]]);
        }
    }
    None
}

fn handle_arg(a: &CallArgs<'_>, i: usize) -> Option<Handle> {
    let x = a.f64(i);
    (x >= 1.0 && x <= f64::from(u32::MAX)).then(|| Handle::from_raw(x as u32)).flatten()
}

fn raw(h: Option<Handle>) -> i64 {
    h.map_or(0, |h| i64::from(h.raw()))
}

fn register_functions(con: &mut Console, shared: &SharedAudio) {
    let sh = shared.clone();
    con.register_function(
        "alxCreateSource",
        2,
        6,
        "alxCreateSource(profile, [x, y, z]) or (description, filename, [x, y, z]) - a stopped source's handle, 0 on failure",
        move |c, a| {
            let Ok(mut au) = sh.try_borrow_mut() else { return 0 };
            if let Some(p) = find_of(c, &a.get(0), "AudioProfile") {
                let Some((file, desc)) = profile_parts(c, p, "alxCreateSource") else { return 0 };
                return raw(source_for(c, &mut au, &file, &desc, point_args(a, 1), false, "alxCreateSource"));
            }
            if let Some(d) = find_of(c, &a.get(0), "AudioDescription") {
                let desc = description(c, d, "alxCreateSource");
                let file = a.str(1).into_owned();
                return raw(source_for(c, &mut au, &file, &desc, point_args(a, 2), false, "alxCreateSource"));
            }
            c.error(&format!("alxCreateSource: no audio profile or description \"{}\"", a.str(0)));
            0
        },
    );
    let sh = shared.clone();
    con.register_function(
        "alxPlay",
        2,
        5,
        "alxPlay(handle) or alxPlay(profile, [x, y, z]) - the playing source's handle, 0 on failure",
        move |c, a| {
            let Ok(mut au) = sh.try_borrow_mut() else { return 0 };
            if let Some(p) = find_of(c, &a.get(0), "AudioProfile") {
                return raw(play_profile(c, &mut au, p, point_args(a, 1), "alxPlay"));
            }
            match handle_arg(a, 0) {
                Some(h) if au.audio.mixer_mut().play(h) => i64::from(h.raw()),
                _ => {
                    c.warn(&format!(
                        "alxPlay: \"{}\" is neither an audio profile nor a live source",
                        a.str(0)
                    ));
                    0
                }
            }
        },
    );
    let sh = shared.clone();
    con.register_function("alxStop", 2, 2, "alxStop(handle)", move |_c, a| {
        if let (Some(h), Ok(mut au)) = (handle_arg(a, 0), sh.try_borrow_mut()) {
            au.audio.mixer_mut().stop(h);
        }
        Value::Empty
    });
    let sh = shared.clone();
    con.register_function("alxStopAll", 1, 1, "alxStopAll()", move |_c, _a| {
        if let Ok(mut au) = sh.try_borrow_mut() {
            au.audio.mixer_mut().stop_all();
            au.followers.clear();
        }
        Value::Empty
    });
    let sh = shared.clone();
    con.register_function(
        "alxIsPlaying",
        2,
        2,
        "alxIsPlaying(handle) - true while it plays",
        move |_c, a| {
            let Ok(au) = sh.try_borrow() else { return false };
            handle_arg(a, 0).is_some_and(|h| au.audio.mixer().is_playing(h))
        },
    );
    for (name, int) in [("alxSourcef", false), ("alxSourcei", true)] {
        let sh = shared.clone();
        con.register_function(name, 4, 4, &format!("{name}(handle, AL_name, value)"), move |c, a| {
            let Some(param) = SourceParam::from_al_name(&a.str(1)) else {
                c.error(&format!("{name}: unknown source setting \"{}\"", a.str(1)));
                return Value::Empty;
            };
            let v = if int { f64::from(a.i32(2)) } else { a.f64(2) };
            let ok = match (handle_arg(a, 0), sh.try_borrow_mut()) {
                (Some(h), Ok(mut au)) => au.audio.mixer_mut().set_param(h, param, v as f32),
                _ => false,
            };
            if !ok {
                c.warn(&format!("{name}: no source {}", a.str(0)));
            }
            Value::Empty
        });
    }
    for (name, int) in [("alxGetSourcef", false), ("alxGetSourcei", true)] {
        let sh = shared.clone();
        con.register_function(name, 3, 3, &format!("{name}(handle, AL_name)"), move |c, a| {
            let Some(param) = SourceParam::from_al_name(&a.str(1)) else {
                c.error(&format!("{name}: unknown source setting \"{}\"", a.str(1)));
                return Value::from(0);
            };
            let v = match (handle_arg(a, 0), sh.try_borrow()) {
                (Some(h), Ok(au)) => au.audio.mixer().param(h, param).unwrap_or(0.0),
                _ => 0.0,
            };
            if int { Value::from(v as i64) } else { Value::from(f64::from(v)) }
        });
    }
    register_position_functions(con, shared);
    register_environment_functions(con, shared);
}

/// The `alx*` functions that place sources and the listener, set channel volumes and
/// measure sounds.
fn register_position_functions(con: &mut Console, shared: &SharedAudio) {
    let sh = shared.clone();
    con.register_function(
        "alxSource3f",
        4,
        6,
        "alxSource3f(handle, AL_POSITION | AL_DIRECTION, \"x y z\" | x, y, z)",
        move |c, a| {
            let which = a.str(1).to_ascii_uppercase();
            let (Some(h), Some(p)) = (handle_arg(a, 0), point_args(a, 2)) else {
                c.error("alxSource3f: wants a handle, a name and three numbers");
                return Value::Empty;
            };
            let Ok(mut au) = sh.try_borrow_mut() else { return Value::Empty };
            let m = au.audio.mixer_mut();
            match which.as_str() {
                "AL_POSITION" => {
                    m.set_position(h, p);
                }
                "AL_DIRECTION" => {
                    m.set_direction(h, p);
                }
                _ => c.error(&format!("alxSource3f: unknown source setting \"{which}\"")),
            }
            Value::Empty
        },
    );
    let sh = shared.clone();
    con.register_function(
        "alxListenerf",
        3,
        3,
        "alxListenerf(AL_GAIN | AL_GAIN_LINEAR, value)",
        move |c, a| {
            let which = a.str(0).to_ascii_uppercase();
            if which != "AL_GAIN" && which != "AL_GAIN_LINEAR" {
                c.error(&format!("alxListenerf: unknown listener setting \"{which}\""));
                return Value::Empty;
            }
            if let Ok(mut au) = sh.try_borrow_mut() {
                au.audio.mixer_mut().set_listener_gain(a.f64(1) as f32);
            }
            Value::Empty
        },
    );
    let sh = shared.clone();
    con.register_function(
        "alxListener3f",
        3,
        5,
        "alxListener3f(AL_POSITION, \"x y z\" | x, y, z) - until the control object moves it",
        move |c, a| {
            let which = a.str(0).to_ascii_uppercase();
            let Some(p) = point_args(a, 1).filter(|_| which == "AL_POSITION") else {
                c.error(&format!("alxListener3f: wants AL_POSITION and three numbers, not \"{which}\""));
                return Value::Empty;
            };
            if let Ok(mut au) = sh.try_borrow_mut() {
                let l = *au.audio.mixer().listener();
                au.audio.mixer_mut().set_listener(p, l.forward, l.up);
            }
            Value::Empty
        },
    );
    let sh = shared.clone();
    con.register_function("alxGetListenerf", 2, 2, "alxGetListenerf(AL_GAIN)", move |_c, _a| {
        sh.try_borrow().map_or(0.0, |au| f64::from(au.audio.mixer().listener().gain))
    });
    let sh = shared.clone();
    con.register_function(
        "alxSetChannelVolume",
        3,
        3,
        "alxSetChannelVolume(channel, volume 0.0-1.0) - false for a channel that does not exist",
        move |c, a| {
            let ch = a.f64(0);
            let ok = ch >= 0.0
                && ch.fract() == 0.0
                && sh.try_borrow_mut().is_ok_and(|mut au| {
                    au.audio.mixer_mut().set_channel_volume(ch as usize, a.f64(1) as f32)
                });
            if !ok {
                c.error(&format!("alxSetChannelVolume: invalid channel '{}'", a.str(0)));
            }
            ok
        },
    );
    let sh = shared.clone();
    con.register_function("alxGetChannelVolume", 2, 2, "alxGetChannelVolume(channel)", move |c, a| {
        let ch = a.f64(0);
        let v = (ch >= 0.0 && ch.fract() == 0.0)
            .then(|| sh.try_borrow().ok().and_then(|au| au.audio.mixer().channel_volume(ch as usize)))
            .flatten();
        match v {
            Some(v) => f64::from(v),
            None => {
                c.error(&format!("alxGetChannelVolume: invalid channel '{}'", a.str(0)));
                0.0
            }
        }
    });
    let sh = shared.clone();
    con.register_function(
        "alxGetWaveLen",
        2,
        2,
        "alxGetWaveLen(profile | filename) - the sound's length in milliseconds, 0 when it cannot be read",
        move |c, a| {
            let arg = a.get(0);
            let file = match find_of(c, &arg, "AudioProfile") {
                Some(p) => c.get_field(p, "filename").as_text().trim().to_string(),
                None if arg.as_text().contains('.') => arg.as_text().into_owned(),
                None => {
                    c.error(&format!("alxGetWaveLen: no audio profile \"{}\"", arg.as_text()));
                    return 0;
                }
            };
            let Ok(mut au) = sh.try_borrow_mut() else { return 0 };
            match au.sound(&file) {
                Ok(s) => s.duration_ms().min(i64::MAX as u64) as i64,
                Err(e) => {
                    c.error(&format!("alxGetWaveLen: {e}"));
                    0
                }
            }
        },
    );
}

/// An AudioEnvironment object as the mixer's [`v12_audio::Environment`]: with `useRoom`, the
/// EAX 2 room its `room` names (an unknown name is a warning and GENERIC); else GENERIC with
/// the object's own numbers (`environmentSize`, `environmentDiffusion`, `roomVolume` as the
/// master level, `roomHF`, `decayTime`, `decayHFRatio`, `reflections`, `reflectionsDelay`,
/// `reverb`, `reverbDelay`); `effectVolume` in both. Junk is a warning naming the field.
pub(crate) fn environment(con: &mut Console, id: ObjectId, what: &str) -> v12_audio::Environment {
    let g = v12_audio::Environment::default();
    let mut e = if flag(con, id, "useRoom") {
        let room = con.get_field(id, "room").as_text().trim().to_string();
        v12_audio::Environment::preset(&room).unwrap_or_else(|| {
            let msg = format!("{what}: {} room \"{room}\" is not an EAX room; using GENERIC", who(con, id));
            con.warn(&msg);
            g.clone()
        })
    } else {
        let mut n = |field: &str, default: f64| num(con, id, field, default, what);
        v12_audio::Environment {
            size: n("environmentSize", f64::from(g.size)) as f32,
            diffusion: n("environmentDiffusion", f64::from(g.diffusion)) as f32,
            room: n("roomVolume", f64::from(g.room)) as i32,
            room_hf: n("roomHF", f64::from(g.room_hf)) as i32,
            decay_time: n("decayTime", f64::from(g.decay_time)) as f32,
            decay_hf_ratio: n("decayHFRatio", f64::from(g.decay_hf_ratio)) as f32,
            reflections: n("reflections", f64::from(g.reflections)) as i32,
            reflections_delay: n("reflectionsDelay", f64::from(g.reflections_delay)) as f32,
            reverb: n("reverb", f64::from(g.reverb)) as i32,
            reverb_delay: n("reverbDelay", f64::from(g.reverb_delay)) as f32,
            effect_volume: 1.0,
        }
    };
    e.effect_volume = num(con, id, "effectVolume", 1.0, what) as f32;
    e.sanitized()
}

/// `alxSetEnvironment(environment)` (an AudioEnvironment, or "" for none: dry) and
/// `alxGetEnvironment()` (the one set, "" for none): the reverb every source with an
/// `environmentLevel` (3D sounds by default) is heard through.
fn register_environment_functions(con: &mut Console, shared: &SharedAudio) {
    let current: Rc<RefCell<Option<ObjectId>>> = Rc::default();
    let (sh, cur) = (shared.clone(), current.clone());
    con.register_function(
        "alxSetEnvironment",
        2,
        2,
        "alxSetEnvironment(environment) - sounds are heard in this AudioEnvironment (\"\": none)",
        move |c, a| {
            let Ok(mut au) = sh.try_borrow_mut() else { return false };
            if a.str(0).trim().is_empty() || a.str(0).trim() == "0" {
                au.audio.mixer_mut().set_environment(None);
                *cur.borrow_mut() = None;
                return true;
            }
            let Some(id) = find_of(c, &a.get(0), "AudioEnvironment") else {
                c.error(&format!("alxSetEnvironment: \"{}\" is not an AudioEnvironment", a.str(0)));
                return false;
            };
            let env = environment(c, id, "alxSetEnvironment");
            au.audio.mixer_mut().set_environment(Some(&env));
            *cur.borrow_mut() = Some(id);
            true
        },
    );
    con.register_function(
        "alxGetEnvironment",
        1,
        1,
        "alxGetEnvironment() - the AudioEnvironment sounds are heard in (\"\": none)",
        move |c, _a| match *current.borrow() {
            Some(id) if c.object(id).is_some() => Value::from(id as i64),
            _ => Value::Empty,
        },
    );
}

/// A player's ears above its feet (m), as the first-person camera's eye.
const EAR_HEIGHT: f32 = 1.7;

/// Moves the console's listener to the control object (its feet at `pos`, heading `yaw`).
pub fn listen_at(con: &Console, pos: glam::Vec3, yaw: f32) {
    if let Some(a) = of(con) {
        a.borrow_mut().set_listener(pos + glam::Vec3::Z * EAR_HEIGHT, yaw);
    }
}

// ---- over the network ----

/// Sound slots of a shape (`playAudio(slot, profile)`), as V12's four.
pub const SOUND_SLOTS: u32 = 4;

/// Where a sound event plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    /// Straight, not in the world (`GameConnection::play2D`).
    TwoD,
    /// At a point (`GameConnection::play3D`).
    At([f32; 3]),
    /// Following a ghost, in one of its slots (`ShapeBase::playAudio` / `stopAudio`).
    Shape {
        /// The ghost's index on the receiving connection.
        ghost: u32,
        /// 0..[`SOUND_SLOTS`].
        slot: u32,
    },
}

/// A sound event from the server: the profile's datablock (its server id; 0 stops a shape's
/// slot) and where it plays. 2D and 3D sounds are unguaranteed (a lost one is not heard; a
/// late one would be wrong); a shape's slot sounds are guaranteed and ordered, so a stop never
/// overtakes its start.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioEvent {
    /// The AudioProfile datablock's server id (0: stop the slot).
    pub profile: u32,
    /// Where.
    pub at: Placement,
}

impl v12_netobject::NetEvent for AudioEvent {
    fn guarantee(&self) -> v12_netobject::Guarantee {
        match self.at {
            Placement::Shape { .. } => v12_netobject::Guarantee::GuaranteedOrdered,
            _ => v12_netobject::Guarantee::Unguaranteed,
        }
    }
    fn pack(&self, w: &mut v12_bitstream::BitWriter, _: &mut v12_netobject::PackContext<'_>) {
        w.write_int(self.profile, 32);
        match self.at {
            Placement::TwoD => w.write_int(0, 2),
            Placement::At(p) => {
                w.write_int(1, 2);
                for c in p {
                    w.write_f32(c);
                }
            }
            Placement::Shape { ghost, slot } => {
                w.write_int(2, 2);
                w.write_int(ghost, 32);
                w.write_int(slot.min(SOUND_SLOTS - 1), 2);
            }
        }
    }
}

impl v12_netobject::NetEventClass for AudioEvent {
    const NAME: &'static str = "SimAudioEvent";
    const DIRECTION: v12_netobject::EventDirection = v12_netobject::EventDirection::ServerToClient;
    fn unpack(
        r: &mut v12_bitstream::BitReader<'_>,
        _: &mut v12_netobject::UnpackContext<'_>,
    ) -> v12_netobject::Result<Self> {
        let profile = r.read_int(32)?;
        let at = match r.read_int(2)? {
            0 => Placement::TwoD,
            1 => {
                let p = [r.read_f32()?, r.read_f32()?, r.read_f32()?];
                // Junk positions are not an error; they are not heard either.
                Placement::At(if p.iter().all(|c| c.is_finite()) { p } else { [f32::MAX; 3] })
            }
            2 => Placement::Shape { ghost: r.read_int(32)?, slot: r.read_int(2)? },
            k => return Err(v12_netobject::NetError::BadEvent(format!("sound event kind {k}"))),
        };
        Ok(AudioEvent { profile, at })
    }
}

/// Client: plays a sound event from the server (true when `event` was one). `blocks` maps
/// the server's datablock ids to this console's; `server_connection` holds the ghosts' index.
pub(crate) fn client_event(
    con: &mut Console,
    event: &dyn v12_netobject::NetEvent,
    blocks: &BTreeMap<u32, ObjectId>,
    server_connection: ObjectId,
) -> bool {
    let Some(ev) = event.downcast_ref::<AudioEvent>() else { return false };
    tracing::debug!(?ev, "sound event");
    let Some(audio) = of(con) else { return true };
    let mut au = audio.borrow_mut();
    // A listen server's own client shares the server's console: the id may be its own.
    let profile = blocks
        .get(&ev.profile)
        .copied()
        .or(Some(ev.profile))
        .filter(|&p| ev.profile != 0 && crate::classes::is_a(con, p, "AudioProfile"));
    match ev.at {
        Placement::Shape { ghost, slot } => {
            let obj = con
                .object_data::<crate::state::ClientGhostIndex>(server_connection)
                .and_then(|ix| ix.by_ghost.get(&ghost).copied());
            match (obj, profile) {
                (Some(obj), Some(p)) => au.play_following(con, obj, slot, p),
                (Some(obj), None) => au.stop_following(obj, slot),
                (None, _) => tracing::debug!(ghost, "sound for a ghost this client does not hold"),
            }
        }
        Placement::TwoD | Placement::At(_) => {
            let Some(p) = profile else {
                tracing::debug!(profile = ev.profile, "sound event naming no AudioProfile this client holds");
                return true;
            };
            let pos = match ev.at {
                Placement::At(p) => Some(p),
                _ => None,
            };
            play_profile(con, &mut au, p, pos, "sound event");
        }
    }
    true
}

/// The AudioProfile datablock argument `i` names (a server sends datablocks only), or a
/// console error naming it.
fn profile_datablock(con: &mut Console, a: &CallArgs<'_>, i: usize, method: &str) -> Option<ObjectId> {
    let p = find_of(con, &a.get(i), "AudioProfile")
        .filter(|&p| con.object(p).is_some_and(|o| o.group == Some(v12_console_vm::DATABLOCK_GROUP_ID)));
    if p.is_none() {
        con.error(&format!("{method}: \"{}\" is not an AudioProfile datablock", a.str(i)));
    }
    p
}

/// Server: the reach of AudioProfile datablock `p` (its description's `maxDistance`), read
/// once; a profile without a description reaches 100 m (and is reported once).
fn reach(con: &mut Console, shared: &Rc<RefCell<crate::state::Shared>>, p: ObjectId, what: &str) -> f32 {
    if let Some(&r) = shared.borrow().sounds.reach.get(&p) {
        return r;
    }
    let r = profile_parts(con, p, what).map_or(Description::default().max_distance, |(_, d)| d.max_distance);
    shared.borrow_mut().sounds.reach.insert(p, r);
    r
}

/// Server: the clients whose control object is farther than `max` from `at` (console ids,
/// sorted), for culling a sound by distance; usually few, so usually no allocation.
fn clients_beyond(s: &crate::state::Shared, at: glam::Vec3, max: f32) -> Vec<u32> {
    let Some(w) = s.world.as_ref() else { return Vec::new() };
    let mut far: Vec<u32> = s
        .control
        .iter()
        .filter(|&(&o, _)| w.get(o).is_some_and(|g| g.state.pos.distance(at) > max))
        .map(|(_, &client)| client)
        .collect();
    far.sort_unstable();
    far
}

/// Server: posts `ev` to connection `conn` (dropped with a log line while the driver is busy).
fn post(
    shared: &Rc<RefCell<crate::state::Shared>>,
    conn: v12_netobject::ConnectionId,
    ev: AudioEvent,
) -> bool {
    let s = shared.borrow();
    let Some(driver) = s.driver.as_ref() else { return false };
    let Ok(mut d) = driver.try_borrow_mut() else {
        tracing::warn!("sound event dropped: the network driver is busy");
        return false;
    };
    d.interface.post_event(conn, Box::new(ev)).is_ok()
}

/// Server: posts `ev` to every client but `skip` whose control object is within `max` of
/// `at` (a client without a control object hears it, as V12's `play3D`). Returns how many.
fn post_near(
    shared: &Rc<RefCell<crate::state::Shared>>,
    skip: Option<v12_netobject::ConnectionId>,
    at: glam::Vec3,
    max: f32,
    ev: AudioEvent,
) -> usize {
    with_driver(shared, |s, d| {
        let far = clients_beyond(s, at, max);
        let mut sent = 0;
        for (client, &conn) in s.client_conns.iter().filter(|&(_, &c)| Some(c) != skip) {
            if far.binary_search(client).is_err()
                && d.interface.post_event(conn, Box::new(ev.clone())).is_ok()
            {
                sent += 1;
            }
        }
        sent
    })
}

/// Server: `f` with the shared state and the network driver, or 0 sounds sent (no server, or
/// the driver busy: the event is dropped with a log line).
fn with_driver(
    shared: &Rc<RefCell<crate::state::Shared>>,
    f: impl FnOnce(&crate::state::Shared, &mut v12_services::driver::NetDriver<crate::Port>) -> usize,
) -> usize {
    let s = shared.borrow();
    let Some(driver) = s.driver.as_ref() else { return 0 };
    let Ok(mut d) = driver.try_borrow_mut() else {
        tracing::warn!("sound event dropped: the network driver is busy");
        return 0;
    };
    f(&s, &mut d)
}

/// Server: posts the event `make` builds from the object's ghost id to every client that
/// has game object `scene` in scope (ghosted). Returns how many.
fn post_in_scope(
    shared: &Rc<RefCell<crate::state::Shared>>,
    scene: u32,
    make: impl Fn(u32) -> AudioEvent,
) -> usize {
    with_driver(shared, |s, d| {
        let mut sent = 0;
        for &conn in s.client_conns.values() {
            let ghost = d
                .interface
                .ghost_manager(conn)
                .and_then(|gm| gm.ghost_id_of(v12_netobject::ghost::ObjectId(scene)));
            if let Some(ghost) = ghost
                && d.interface.post_event(conn, Box::new(make(ghost))).is_ok()
            {
                sent += 1;
            }
        }
        sent
    })
}

/// Server: the AudioProfile datablock `profile` names and its reach, looked up once per name
/// (the datablock's id is checked to be alive each time); an unknown profile is a console
/// warning naming it and object `scene`, each time it plays.
fn state_sound(
    c: &mut Console,
    shared: &Rc<RefCell<crate::state::Shared>>,
    scene: u32,
    profile: &str,
) -> Option<(ObjectId, f32)> {
    let known = shared.borrow().sounds.named.get(profile).copied();
    if let Some((p, max)) = known.filter(|&(p, _)| c.object(p).is_some()) {
        return Some((p, max));
    }
    let p = find_of(c, &Value::from(profile), "AudioProfile")
        .filter(|&p| c.object(p).is_some_and(|o| o.group == Some(v12_console_vm::DATABLOCK_GROUP_ID)));
    let Some(p) = p else {
        c.warn(&format!("stateSound: \"{profile}\" is not an AudioProfile datablock (object {scene})"));
        return None;
    };
    let max = reach(c, shared, p, "stateSound");
    shared.borrow_mut().sounds.named.insert(profile.to_string(), (p, max));
    Some((p, max))
}

/// Server: plays `profile` (an AudioProfile datablock's name) where game object `scene` is,
/// to the clients within the profile's reach (its `maxDistance`): an image state's
/// `stateSound`. A predicted image's controlling client is skipped: it played the sound when
/// it predicted the state.
pub(crate) fn play_at_object(
    c: &mut Console,
    shared: &Rc<RefCell<crate::state::Shared>>,
    scene: u32,
    profile: &str,
    predicted: bool,
) {
    let Some((p, max)) = state_sound(c, shared, scene, profile) else { return };
    let (pos, skip) = {
        let s = shared.borrow();
        let pos = s.world.as_ref().and_then(|w| w.get(scene)).map(|o| o.state.pos);
        let skip = predicted.then(|| s.control.get(&scene)).flatten();
        (pos, skip.and_then(|client| s.client_conns.get(client).copied()))
    };
    if let Some(pos) = pos {
        post_near(shared, skip, pos, max, AudioEvent { profile: p, at: Placement::At(pos.to_array()) });
    }
}

/// Server: checks, once per projectile datablock, that its explosion's `soundProfile` names
/// an AudioProfile datablock (a warning naming the explosion otherwise). The sound itself is
/// the clients': each plays it where it sees the shot explode (`client::effects`), as V12's
/// Explosion, a client-side object, plays its own sound.
pub(crate) fn check_explosion_sound(c: &mut Console, shared: &Rc<RefCell<crate::state::Shared>>, proj: u32) {
    let Some(data) = shared.borrow().objects.get(&proj).map(|g| g.datablock) else { return };
    if !shared.borrow_mut().sounds.explosions_checked.insert(data) {
        return;
    }
    let Some(explosion) = find_of(c, &c.get_field(data, "explosion"), "ExplosionData") else { return };
    let name = c.get_field(explosion, "soundProfile");
    if name.as_text().trim().is_empty() {
        return;
    }
    let is_profile = find_of(c, &name, "AudioProfile")
        .is_some_and(|p| c.object(p).is_some_and(|o| o.group == Some(v12_console_vm::DATABLOCK_GROUP_ID)));
    if !is_profile {
        c.warn(&format!(
            "ExplosionData {explosion}: soundProfile \"{}\" is not an AudioProfile datablock",
            name.as_text()
        ));
    }
}

/// Server: the GameConnection methods `play2D` and `play3D`, and ShapeBase's `playAudio` and
/// `stopAudio`.
pub(crate) fn register_net_methods(con: &mut Console, shared: &Rc<RefCell<crate::state::Shared>>) {
    register_voice_methods(con, shared);
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "play2D",
        3,
        3,
        "play2D(profile) - this client hears the sound",
        move |c, a| {
            let Some(p) = profile_datablock(c, a, 1, "play2D") else { return false };
            let conn = a.this.and_then(|cl| sh.borrow().client_conns.get(&cl).copied());
            let Some(conn) = conn else {
                c.error("play2D: not a connected client");
                return false;
            };
            post(&sh, conn, AudioEvent { profile: p, at: Placement::TwoD })
        },
    );
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "play3D",
        4,
        4,
        "play3D(profile, transform) - this client hears the sound there, if in range of its control object",
        move |c, a| {
            let (ptext, ttext) = (a.str(1), a.str(2));
            let last = sh.borrow().sounds.last_play3d.as_ref().and_then(|(pt, tt, p, pos)| {
                (*pt == *ptext && *tt == *ttext && c.object(*p).is_some()).then_some((*p, *pos))
            });
            let (p, pos) = match last {
                Some(hit) => hit,
                None => {
                    let Some(p) = profile_datablock(c, a, 1, "play3D") else { return false };
                    let words: Vec<f32> =
                        ttext.split_whitespace().take(3).filter_map(|w| w.parse().ok()).collect();
                    let pos = match words[..] {
                        [x, y, z] if [x, y, z].iter().all(|v| v.is_finite()) => [x, y, z],
                        _ => {
                            c.error(&format!("play3D: \"{ttext}\" is not a transform"));
                            return false;
                        }
                    };
                    let memo = (ptext.clone().into_owned(), ttext.clone().into_owned(), p, pos);
                    sh.borrow_mut().sounds.last_play3d = Some(memo);
                    (p, pos)
                }
            };
            let Some(client) = a.this else { return false };
            let Some(conn) = sh.borrow().client_conns.get(&client).copied() else {
                c.error("play3D: not a connected client");
                return false;
            };
            // In scope: within the description's maxDistance of the control object (V12 sends
            // to a client without one).
            let max = reach(c, &sh, p, "play3D");
            let near = {
                let s = sh.borrow();
                let control = s.control.iter().find(|&(_, &cl)| cl == client).map(|(&o, _)| o);
                match (control, s.world.as_ref()) {
                    (Some(o), Some(w)) => {
                        w.get(o).is_none_or(|o| o.state.pos.distance(glam::Vec3::from(pos)) <= max)
                    }
                    _ => true,
                }
            };
            near && post(&sh, conn, AudioEvent { profile: p, at: Placement::At(pos) })
        },
    );
    for (method, play) in [("playAudio", true), ("stopAudio", false)] {
        let sh = shared.clone();
        let (min, usage) = if play {
            (
                4,
                "playAudio(slot, profile) - every client that has the object in scope hears it, following the object",
            )
        } else {
            (3, "stopAudio(slot)")
        };
        con.register_method("ShapeBase", method, min, min, usage, move |c, a| {
            let slot = a.f64(1);
            if !(slot >= 0.0 && slot < f64::from(SOUND_SLOTS) && slot.fract() == 0.0) {
                c.error(&format!("{method}: slot {} is not 0 to {}", a.str(1), SOUND_SLOTS - 1));
                return false;
            }
            let profile = if play {
                match profile_datablock(c, a, 2, method) {
                    Some(p) => p,
                    None => return false,
                }
            } else {
                0
            };
            let scene = a.this.and_then(|o| sh.borrow().by_console.get(&o).copied());
            let Some(scene) = scene else {
                c.error(&format!("{method}: not a server game object"));
                return false;
            };
            post_in_scope(&sh, scene, |ghost| AudioEvent {
                profile,
                at: Placement::Shape { ghost, slot: slot as u32 },
            });
            true
        });
    }
}

// ---- voice chat's glue (the codec, events, relay and capture are `crate::voice`) ----

/// Server: a [`crate::voice::VoiceUp`] from `from` (true when `event` was one): weighed against the cap,
/// then relayed to every other client that listens to the speaker.
pub(crate) fn voice_server_event(
    con: &mut Console,
    client: Option<ObjectId>,
    shared: &Rc<RefCell<crate::state::Shared>>,
    driver: &crate::SharedDriver,
    from: v12_netobject::ConnectionId,
    now_ms: u64,
    event: &dyn v12_netobject::NetEvent,
) -> bool {
    let Some(up) = event.downcast_ref::<crate::voice::VoiceUp>() else { return false };
    let Some(speaker) = client else { return true };
    let verdict = shared.borrow_mut().voice.admit(from, up.packet.len(), now_ms);
    match verdict {
        crate::voice::Verdict::Pass => {}
        crate::voice::Verdict::Drop => return true,
        crate::voice::Verdict::Mute(why) => {
            tracing::warn!(client = speaker, "{why}");
            con.warn(&format!("voice: client {speaker} {why}"));
            return true;
        }
        crate::voice::Verdict::Disconnect(why) => {
            tracing::warn!(client = speaker, "{why}; dropping the client");
            con.warn(&format!("voice: client {speaker} dropped: {why}"));
            driver.borrow_mut().interface.disconnect(from, &why);
            return true;
        }
    }
    let in_3d = con.get_global("Pref::Audio::Voice3D").truthy();
    let s = shared.borrow();
    let control = if in_3d { s.control.iter().find(|&(_, &c)| c == speaker).map(|(&o, _)| o) } else { None };
    let Ok(mut d) = driver.try_borrow_mut() else {
        tracing::warn!("voice dropped: the network driver is busy");
        return true;
    };
    for (&listener, &conn) in &s.client_conns {
        if conn == from || !s.voice.listens(listener, speaker) {
            continue;
        }
        let ghost = control.and_then(|o| {
            d.interface.ghost_manager(conn).and_then(|gm| gm.ghost_id_of(v12_netobject::ghost::ObjectId(o)))
        });
        let ev = crate::voice::VoiceDown { speaker, ghost, packet: up.packet.clone() };
        let _ = d.interface.post_event(conn, Box::new(ev));
    }
    true
}

/// Server: the GameConnection methods `listenTo(who, bool)`, `listenToAll()`,
/// `listenToNone()` and `canListenTo(who)` (Tribes 2's).
fn register_voice_methods(con: &mut Console, shared: &Rc<RefCell<crate::state::Shared>>) {
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "listenTo",
        4,
        4,
        "listenTo(client, bool) - whether this client hears that client's voice",
        move |c, a| {
            let (Some(me), Some(who)) = (a.this, c.find_object(&a.get(1))) else {
                c.error(&format!("listenTo: \"{}\" is not a client", a.str(1)));
                return false;
            };
            sh.borrow_mut().voice.listen_to(me, who, a.get(2).truthy());
            true
        },
    );
    for (method, on) in [("listenToAll", true), ("listenToNone", false)] {
        let sh = shared.clone();
        con.register_method(
            "GameConnection",
            method,
            2,
            2,
            "every client's voice on or off",
            move |_c, a| {
                let Some(me) = a.this else { return false };
                let mut s = sh.borrow_mut();
                let others: Vec<u32> = s.client_conns.keys().copied().filter(|&o| o != me).collect();
                for o in others {
                    s.voice.listen_to(me, o, on);
                }
                true
            },
        );
    }
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "canListenTo",
        3,
        3,
        "canListenTo(client) - true when this client hears that client's voice",
        move |c, a| match (a.this, c.find_object(&a.get(1))) {
            (Some(me), Some(who)) => sh.borrow().voice.listens(me, who),
            _ => false,
        },
    );
}

/// Client: sends the captured packets to the server on `conn`.
pub(crate) fn flush_voice(con: &Console, driver: &crate::SharedDriver, conn: v12_netobject::ConnectionId) {
    let Some(a) = of(con) else { return };
    let packets = a.borrow_mut().voice.take_outgoing();
    if packets.is_empty() {
        return;
    }
    let Ok(mut d) = driver.try_borrow_mut() else { return };
    for packet in packets {
        let _ = d.interface.post_event(conn, Box::new(crate::voice::VoiceUp { packet }));
    }
}

/// Client: a [`crate::voice::VoiceDown`] from the server (true when `event` was one) is heard.
pub(crate) fn voice_client_event(
    con: &Console,
    event: &dyn v12_netobject::NetEvent,
    server_connection: ObjectId,
) -> bool {
    let Some(ev) = event.downcast_ref::<crate::voice::VoiceDown>() else { return false };
    let Some(audio) = of(con) else { return true };
    let at = ev.ghost.and_then(|g| {
        con.object_data::<crate::state::ClientGhostIndex>(server_connection)
            .and_then(|ix| ix.by_ghost.get(&g).copied())
    });
    let mut au = audio.borrow_mut();
    let au = &mut *au;
    let now = au.voice.elapsed_ms;
    au.voice.hear(au.audio.mixer_mut(), ev.speaker, at, &ev.packet, now, &mut au.followers);
    true
}

/// The client's console functions: `alxCaptureStart([local])`, `alxCaptureStop()`,
/// `alxIsCapturing()`.
fn register_voice_functions(con: &mut Console, shared: &SharedAudio) {
    let sh = shared.clone();
    con.register_function(
        "alxCaptureStart",
        1,
        2,
        "alxCaptureStart([local]) - push-to-talk pressed: the voice input is sent to the server (local: heard here only)",
        move |c, a| {
            let local = !a.is_empty() && a.get(0).truthy();
            match sh.borrow_mut().voice.start(local) {
                Ok(()) => true,
                Err(e) => {
                    c.warn(&format!("alxCaptureStart: {e}"));
                    false
                }
            }
        },
    );
    let sh = shared.clone();
    con.register_function(
        "alxCaptureStop",
        1,
        1,
        "alxCaptureStop() - push-to-talk released",
        move |_c, _a| {
            let mut au = sh.borrow_mut();
            let au = &mut *au;
            au.voice.stop(au.audio.mixer_mut());
            Value::Empty
        },
    );
    let sh = shared.clone();
    con.register_function(
        "alxIsCapturing",
        1,
        1,
        "alxIsCapturing() - true while push-to-talk is held",
        move |_c, _a| sh.borrow().voice.is_capturing(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mod folder with a 0.5 s mono 440 Hz tone at `sounds/beep.wav`, and a console with
    /// the sound installed on the in-memory capture device.
    fn setup(name: &str) -> (Console, SharedAudio, v12_console_vm::BufferSink, PathBuf) {
        let dir = std::env::temp_dir().join(format!("v12-game-audio-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sounds")).unwrap();
        let spec = hound::WavSpec { channels: 1, ..v12_audio::capture_spec() };
        let mut w = hound::WavWriter::create(dir.join("sounds/beep.wav"), spec).unwrap();
        for i in 0..22_050 {
            let s = (i as f32 * 440.0 / 44_100.0 * std::f32::consts::TAU).sin();
            w.write_sample((s * 16_000.0) as i16).unwrap();
        }
        w.finalize().unwrap();
        std::fs::write(dir.join("sounds/broken.wav"), b"RIFF\x24\x00\x00\x00WAVEjunkjunk").unwrap();
        let mut con = Console::new();
        let sink = v12_console_vm::BufferSink::new();
        con.set_output(Box::new(sink.clone()));
        let res = crate::mod_files::install(&mut con, &dir, &[]).unwrap();
        con.set_preload(Box::new(crate::classes::preload));
        let audio = install(&mut con, &res);
        audio.borrow_mut().open(&DeviceChoice::Memory);
        (con, audio, sink, dir)
    }

    const PROFILES: &str = r#"
        datablock AudioDescription(AudioClose3d) {
            volume = 1.0; isLooping = false; is3D = true;
            referenceDistance = 2; maxDistance = 50; type = $EffectAudioType;
        };
        datablock AudioDescription(AudioLoop2d) { volume = 1.0; isLooping = true; type = $EffectAudioType; };
        datablock AudioProfile(Beep) { filename = "sounds/beep.wav"; description = AudioClose3d; preload = true; };
        datablock AudioProfile(BeepLoop) { filename = "sounds/beep.wav"; description = AudioLoop2d; };
        new AudioDescription(AudioGui) { volume = 0.5; type = $GuiAudioType; };
        new AudioProfile(Click) { filename = "sounds/beep.wav"; description = AudioGui; };
        datablock AudioEnvironment(Underwater) { useRoom = true; room = "UNDERWATER"; };
    "#;

    fn levels(audio: &SharedAudio) -> (f64, f64) {
        let a = audio.borrow();
        let frames = a.audio.device().captured().unwrap();
        frames.iter().fold((0.0, 0.0), |(l, r), f| (l + f64::from(f[0]).abs(), r + f64::from(f[1]).abs()))
    }

    #[test]
    fn scripts_play_profiles_in_3d_and_2d() {
        let (mut con, audio, sink, dir) = setup("play");
        con.eval(PROFILES).unwrap();
        assert!(!sink.all().contains("Unable"), "{}", sink.all());
        assert!(con.find_object_str("Underwater").is_some());
        // On the listener's right: louder in the right ear.
        let h = con.eval("return alxPlay(Beep, 10, 0, 0);").unwrap().to_f64();
        assert!(h > 0.0);
        assert!(con.eval(&format!("return alxIsPlaying({h});")).unwrap().truthy());
        advance(&mut con, 200);
        let (l, r) = levels(&audio);
        assert!(r > l * 10.0, "{l} {r}");
        // A 2D GUI sound at half volume, centred.
        audio.borrow_mut().open(&DeviceChoice::Memory);
        con.eval("alxPlay(Click);").unwrap();
        advance(&mut con, 100);
        let (l, r) = levels(&audio);
        assert!(l > 0.0 && l == r);
        // alxGetWaveLen by profile and by file.
        assert_eq!(con.eval("return alxGetWaveLen(Beep);").unwrap().to_f64(), 500.0);
        assert_eq!(con.eval("return alxGetWaveLen(\"sounds/beep.wav\");").unwrap().to_f64(), 500.0);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_audio_environment_rings_after_the_sound_ends() {
        let (mut con, audio, sink, dir) = setup("reverb");
        con.eval(PROFILES).unwrap();
        con.eval(
            "new AudioEnvironment(Hall) { environmentSize = 20; decayTime = 3; reverb = 1000; };\n\
             new AudioEnvironment(Dead) { decayTime = 0.2; };",
        )
        .unwrap();
        // The energy after the half-second beep is over (from 0.6 s to 1.5 s).
        let tail = |con: &mut Console, env: &str| {
            audio.borrow_mut().open(&DeviceChoice::Memory);
            assert!(con.eval(&format!("return alxSetEnvironment(\"{env}\");")).unwrap().truthy(), "{env}");
            con.eval("alxPlay(Beep, 3, 0, 0);").unwrap();
            advance(con, 1_500);
            let a = audio.borrow();
            let f = a.audio.device().captured().unwrap();
            f[26_460..66_150].iter().map(|x| f64::from(x[0]).powi(2) + f64::from(x[1]).powi(2)).sum::<f64>()
        };
        let dry = tail(&mut con, "");
        let dead = tail(&mut con, "Dead");
        let hall = tail(&mut con, "Hall");
        let under = tail(&mut con, "Underwater");
        assert_eq!(dry, 0.0);
        assert!(hall > dead * 10.0 && dead > 0.0, "{dead} {hall}");
        assert!(under > 0.0);
        assert_eq!(con.eval("return alxGetEnvironment().getName();").unwrap().as_text(), "Underwater");
        // A 2D sound is dry (its description sends nothing to the environment).
        audio.borrow_mut().open(&DeviceChoice::Memory);
        con.eval("alxSetEnvironment(Hall); alxPlay(Click);").unwrap();
        advance(&mut con, 1_500);
        let a = audio.borrow();
        let f = a.audio.device().captured().unwrap();
        assert!(f[26_460..].iter().all(|x| x[0] == 0));
        drop(a);
        // Junk: not an environment, a room that is not EAX's.
        assert!(!con.eval("return alxSetEnvironment(Beep);").unwrap().truthy());
        con.eval(
            "new AudioEnvironment(Odd) { useRoom = true; room = \"NOWHERE\"; }; alxSetEnvironment(Odd);",
        )
        .unwrap();
        assert!(sink.all().contains("is not an EAX room"), "{}", sink.all());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn sources_loops_and_channel_volumes() {
        let (mut con, audio, _sink, dir) = setup("sources");
        con.eval(PROFILES).unwrap();
        let h = con.eval("return alxCreateSource(BeepLoop);").unwrap().to_f64();
        assert!(h > 0.0);
        assert!(!con.eval(&format!("return alxIsPlaying({h});")).unwrap().truthy());
        con.eval(&format!("alxSourcef({h}, \"AL_GAIN\", 0.5); alxPlay({h});")).unwrap();
        advance(&mut con, 1_000);
        assert!(
            con.eval(&format!("return alxIsPlaying({h});")).unwrap().truthy(),
            "a loop plays past its end"
        );
        con.eval(&format!("alxStop({h});")).unwrap();
        assert!(!con.eval(&format!("return alxIsPlaying({h});")).unwrap().truthy());
        // Channel volumes.
        assert!(con.eval("return alxSetChannelVolume($EffectAudioType, 0.25);").unwrap().truthy());
        assert_eq!(con.eval("return alxGetChannelVolume($EffectAudioType);").unwrap().to_f64(), 0.25);
        assert!(!con.eval("return alxSetChannelVolume(40, 1);").unwrap().truthy());
        con.eval("alxSetChannelVolume($EffectAudioType, 0);").unwrap();
        audio.borrow_mut().open(&DeviceChoice::Memory);
        con.eval("alxPlay(BeepLoop);").unwrap();
        advance(&mut con, 100);
        assert_eq!(levels(&audio), (0.0, 0.0), "a muted channel is silent");
        con.eval("alxSetChannelVolume($EffectAudioType, 1); alxListenerf(AL_GAIN_LINEAR, 0);").unwrap();
        audio.borrow_mut().open(&DeviceChoice::Memory);
        con.eval("alxListenerf(AL_GAIN_LINEAR, 0); alxPlay(BeepLoop);").unwrap();
        advance(&mut con, 100);
        assert_eq!(levels(&audio), (0.0, 0.0), "listener gain 0 is silent");
        // A description and a file.
        con.eval("alxListenerf(AL_GAIN, 1);").unwrap();
        let h = con.eval("return alxCreateSource(AudioGui, \"sounds/beep.wav\");").unwrap().to_f64();
        assert!(h > 0.0);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Declarations as Tribes 2's stock scripts write them (their fields' spelling, the
    /// force-feedback EffectProfile they name, client-side `new` objects): every one is made.
    #[test]
    fn tribes_2_style_declarations_instantiate() {
        let (mut con, _audio, sink, dir) = setup("t2");
        con.eval(
            r#"datablock EffectProfile(ShrikeBlasterFireEffect) { effectname = "vehicles/shrike_blaster"; minDistance = 2.5; maxDistance = 2.5; };
               datablock AudioDescription(ClosestLooping3d) { volume = 1.0; isLooping = true; is3D = true;
                  ReferenceDistance = 5.0; MaxDistance = 30.0; type = $EffectAudioType;
                  loopCount = -1; minLoopGap = 0; maxLoopGap = 0; environmentLevel = 1.0; };
               datablock AudioDescription(AudioDefault3d) { volume = 1.0; isLooping = false; is3D = true;
                  ReferenceDistance = 20.0; MaxDistance = 100.0; type = $EffectAudioType; };
               datablock AudioProfile(ShrikeBlasterFire) { filename = "fx/vehicles/shrike_blaster.wav";
                  description = AudioDefault3d; preload = true; effect = ShrikeBlasterFireEffect; };
               new AudioDescription(AudioGui) { volume = 1.0; isLooping = false; is3D = false; type = $GuiAudioType; };
               new AudioProfile(sButtonDown) { filename = "gui/buttonDown.wav"; description = "AudioGui"; preload = true; };
               datablock AudioEnvironment(Underwater) { useRoom = true; room = "UNDERWATER"; effectVolume = 1.0; };
               new AudioEnvironment(Cavern) { useRoom = true; room = "CAVE"; };
               alxListener3f(AL_POSITION, "1 2 3");"#,
        )
        .unwrap();
        let out = sink.all();
        assert!(!out.contains("Unable") && !out.contains("warning") && !out.contains("rror"), "{out}");
        for name in [
            "ShrikeBlasterFireEffect",
            "ClosestLooping3d",
            "AudioDefault3d",
            "ShrikeBlasterFire",
            "AudioGui",
            "sButtonDown",
            "Underwater",
            "Cavern",
        ] {
            assert!(con.find_object_str(name).is_some(), "{name} was not made\n{out}");
        }
        let d = con.find_object_str("ClosestLooping3d").unwrap();
        let desc = description(&mut con, d, "test");
        assert!(desc.looping && desc.is_3d && desc.reference_distance == 5.0 && desc.max_distance == 30.0);
        assert_eq!(desc.channel, channel::EFFECT);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A client's ghosts' own sounds: a vehicle's engine loops on it, pitched by its speed,
    /// and stops when its ghost goes; a walking player's footsteps.
    #[test]
    fn engines_loop_with_speed_and_players_step() {
        use crate::state::{ClientGhostIndex, GhostState};
        let (mut con, audio, _sink, dir) = setup("engine");
        // The game classes, as a client console has them (on the world's SceneObject).
        let _ = con.register_class("SceneObject", "SimObject");
        crate::objects::register(&mut con, &Rc::default());
        con.eval(PROFILES).unwrap();
        con.eval(
            r#"datablock AudioDescription(EngineLoop3d) { isLooping = true; is3D = true; referenceDistance = 5; maxDistance = 80; };
               datablock AudioProfile(SkimmerEngine) { filename = "sounds/beep.wav"; description = EngineLoop3d; };
               datablock HoverVehicleData(Skimmer) { engineSound = SkimmerEngine; maxForwardSpeed = 40; };
               datablock PlayerData(Walker) { FootSoftSound = Beep; };"#,
        )
        .unwrap();
        let ghost = |c: &mut Console, class: &str, db: &str, id: u32, pos: glam::Vec3, vel: glam::Vec3| {
            let datablock = c.find_object_str(db).unwrap();
            let state =
                GhostState { ghost_id: id, pos, vel, yaw: 0.0, datablock, health: 100, hidden: false };
            c.create_object_with_data(class, None, Box::new(state)).unwrap()
        };
        let skimmer =
            ghost(&mut con, "HoverVehicle", "Skimmer", 1, glam::Vec3::new(6.0, 0.0, 0.0), glam::Vec3::ZERO);
        let walker =
            ghost(&mut con, "Player", "Walker", 2, glam::Vec3::new(-3.0, 0.0, 0.0), glam::Vec3::ZERO);
        let index = ClientGhostIndex { by_ghost: [(1, skimmer), (2, walker)].into(), control: None };
        con.create_object_with_data("SimObject", Some("ServerConnection"), Box::new(index)).unwrap();
        advance(&mut con, 100);
        let engine =
            audio.borrow().followers.get(&(skimmer, ENGINE_SLOT)).copied().expect("the engine plays");
        let pitch = |a: &SharedAudio| a.borrow().audio.mixer().param(engine, SourceParam::Pitch).unwrap();
        assert!((pitch(&audio) - 0.7).abs() < 1e-6);
        let (l, r) = levels(&audio);
        assert!(r > l, "the engine on the right: {l} {r}");
        // Full speed: top pitch.
        con.object_data_mut::<GhostState>(skimmer).unwrap().vel = glam::Vec3::new(0.0, 40.0, 0.0);
        advance(&mut con, 32);
        assert!((pitch(&audio) - 1.5).abs() < 1e-6);
        // The walker walks 2 m: one footstep (a source beside the engine).
        let before = audio.borrow().audio.mixer().source_count();
        con.object_data_mut::<GhostState>(walker).unwrap().pos = glam::Vec3::new(-3.0, 2.0, 0.0);
        advance(&mut con, 32);
        assert_eq!(audio.borrow().audio.mixer().source_count(), before + 1);
        // The vehicle's ghost is gone: its engine stops.
        con.delete_object(skimmer);
        advance(&mut con, 32);
        assert!(!audio.borrow().audio.mixer().is_alive(engine));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn bad_input_is_a_console_message_naming_it() {
        let (mut con, _audio, sink, dir) = setup("bad");
        con.eval(PROFILES).unwrap();
        con.eval(
            r#"datablock AudioDescription(Junk) { volume = "loud"; maxDistance = -5; type = 99; };
               datablock AudioProfile(Missing) { filename = "sounds/nope.wav"; description = AudioGui; };
               datablock AudioProfile(Broken) { filename = "sounds/broken.wav"; description = AudioGui; };
               datablock AudioProfile(NoDesc) { filename = "sounds/beep.wav"; description = Nowhere; };"#,
        )
        .unwrap();
        let out = sink.all();
        assert!(out.contains("Junk") && out.contains("volume") && out.contains("maxDistance"), "{out}");
        assert!(out.contains("type"), "{out}");
        for (script, expect) in [
            ("return alxPlay(NoSuchProfile);", "NoSuchProfile"),
            ("return alxPlay(Missing);", "sounds/nope.wav"),
            ("return alxPlay(Broken);", "sounds/broken.wav"),
            ("return alxPlay(NoDesc);", "Nowhere"),
            ("return alxCreateSource(Nothing);", "Nothing"),
            ("return alxGetWaveLen(NoSuchProfile);", "NoSuchProfile"),
            ("return alxPlay(Beep, \"junk\");", ""),
            ("return alxSourcef(77, AL_BOGUS, 1);", "AL_BOGUS"),
            ("return alxSourcef(77, AL_GAIN, 1);", "77"),
            ("return alxGetChannelVolume(-3);", "-3"),
            ("return alxListenerf(AL_PITCH, 1);", "AL_PITCH"),
        ] {
            sink.clear();
            let v = con.eval(script).unwrap();
            if script.starts_with("return alxPlay(N")
                || script.contains("Missing")
                || script.contains("Broken")
            {
                assert_eq!(v.to_f64(), 0.0, "{script}");
            }
            assert!(sink.all().contains(expect), "{script}: {}", sink.all());
        }
        // The junk description still plays, with its defaults.
        assert!(con.eval("return alxCreateSource(Junk, \"sounds/beep.wav\");").unwrap().to_f64() > 0.0);
        let _ = std::fs::remove_dir_all(dir);
    }

    // ---- voice chat ----

    fn tone_wav(path: &std::path::Path, hz: f32, seconds: f32) {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 22_050,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(path, spec).unwrap();
        for i in 0..(22_050.0 * seconds) as usize {
            let s = (i as f32 * hz / 22_050.0 * std::f32::consts::TAU).sin();
            w.write_sample((s * 16_000.0) as i16).unwrap();
        }
        w.finalize().unwrap();
    }

    /// The energy at `hz` over the energy of the whole (left channel), by Goertzel.
    fn share_at(frames: &[[i16; 2]], hz: f64) -> f64 {
        let w = std::f64::consts::TAU * hz / 44_100.0;
        let (mut s1, mut s2) = (0.0f64, 0.0f64);
        let mut total = 0.0;
        for f in frames {
            let x = f64::from(f[0]);
            total += x * x;
            let s0 = x + 2.0 * w.cos() * s1 - s2;
            s2 = s1;
            s1 = s0;
        }
        let power = s1 * s1 + s2 * s2 - 2.0 * w.cos() * s1 * s2;
        if total == 0.0 { 0.0 } else { 2.0 * power / (total * frames.len() as f64) }
    }

    fn voice_console(name: &str) -> (Console, crate::audio::SharedAudio, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("v12-game-voice-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        tone_wav(&dir.join("speech.wav"), 440.0, 1.0);
        let mut con = Console::new();
        let res = crate::mod_files::install(&mut con, &dir, &[]).unwrap();
        let audio = install(&mut con, &res);
        audio.borrow_mut().open(&v12_audio::DeviceChoice::Memory);
        (con, audio, dir)
    }

    #[test]
    fn push_to_talk_speaks_a_wav_input_and_a_listener_hears_it() {
        // The speaker: no input, then `--audio-input`.
        let (mut con, speaker, dir) = voice_console("speak");
        assert!(!con.eval("return alxCaptureStart();").unwrap().truthy(), "no input yet");
        speaker.borrow_mut().voice.set_input(Some(dir.join("speech.wav")));
        assert!(con.eval("return alxCaptureStart();").unwrap().truthy());
        assert!(con.eval("return alxIsCapturing();").unwrap().truthy());
        advance(&mut con, 500);
        con.eval("alxCaptureStop();").unwrap();
        advance(&mut con, 500);
        let packets = speaker.borrow_mut().voice.take_outgoing();
        // 0.5 s of 20 ms frames (the stop sends none: the input was cut on a frame).
        assert_eq!(packets.len(), 25);
        let bytes: usize = packets.iter().map(Vec::len).sum();
        assert!(bytes * 2 <= crate::voice::VOICE_CAP_BYTES_PER_S as usize, "{bytes} bytes in 0.5 s");
        // Through the events' bits, as the server relays them.
        let (_lcon, listener, ldir) = voice_console("hear");
        let mut au = listener.borrow_mut();
        let au = &mut *au;
        for (i, p) in packets.iter().enumerate() {
            let ev = crate::voice::VoiceDown { speaker: 7, ghost: None, packet: p.clone() };
            let mut w = v12_bitstream::BitWriter::new();
            ev.write(&mut w);
            let bytes = w.into_bytes();
            let back = crate::voice::VoiceDown::read(&mut v12_bitstream::BitReader::new(&bytes)).unwrap();
            assert_eq!(back, ev);
            au.voice.hear(
                au.audio.mixer_mut(),
                back.speaker,
                None,
                &back.packet,
                i as u64 * 20,
                &mut au.followers,
            );
            au.audio.advance(20);
        }
        au.audio.advance(300);
        let frames = au.audio.device().captured().unwrap();
        let loud = frames.iter().filter(|f| f[0].unsigned_abs() > 3_000).count();
        assert!(loud > 10_000, "{loud} loud frames");
        // Voice is 2D: centred; and it is the speaker's tone.
        assert!(frames.iter().all(|f| f[0] == f[1]));
        assert!(share_at(frames, 440.0) > 0.5, "{}", share_at(frames, 440.0));
        assert!(share_at(frames, 1000.0) < 0.05);
        let _ = std::fs::remove_dir_all(dir);
        let _ = std::fs::remove_dir_all(ldir);
    }

    #[test]
    fn a_local_capture_is_heard_here_and_not_sent() {
        let (mut con, audio, dir) = voice_console("local");
        audio.borrow_mut().voice.set_input(Some(dir.join("speech.wav")));
        con.eval("alxCaptureStart(true);").unwrap();
        advance(&mut con, 1_200);
        con.eval("alxCaptureStop();").unwrap();
        assert!(audio.borrow_mut().voice.take_outgoing().is_empty());
        let a = audio.borrow();
        let frames = a.audio.device().captured().unwrap();
        assert!(share_at(frames, 440.0) > 0.5);
        let _ = std::fs::remove_dir_all(dir);
    }
}
