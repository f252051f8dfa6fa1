//! The OpenXR frame loop and what outlives a session: the app core, the
//! scene builder, the run's record, the session states seen, and why the
//! run is ending. It drives a [`Session`] (which owns everything of the
//! session and makes every runtime call) through the session state machine,
//! frame pacing by xrWaitFrame, input while focused (and the voice commands
//! the player's speech recognizer heard, or on Windows without one,
//! Windows' own), the app core each frame and
//! drawing when the runtime asks; it ends on Ctrl-C (SIGINT), SIGTERM,
//! `--frames`, the runtime's request, or the runtime stopping under the
//! session. What it records is shared with the watchdog (`watchdog.rs`),
//! which writes it when the runtime stops answering.
//!
//! One loop can drive several sessions in turn: with Holographic Remoting a
//! dropped connection loses the session, and once `xr::run` has connected
//! again it hands the same loop a new session. The terrain, its seed and
//! its placement carry on; the hologram is pinned with a new anchor in the
//! new session at the pose it had.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use openxr as xr;

use crate::app::driver::FrameDriver;
use crate::app::log::{CommandLog, LogStart};
use crate::app::recorder::{RunRecorder, WorldSummary};
use crate::app::report::RunReport;
use crate::app::{AppEvent, FrameInput, FrameOutput, VoiceCommand};
use crate::atomic_file;
use crate::input::Hand;
use crate::input::geometry::Pose;
use crate::net::{self, PeerRecord, ShareReport};
use crate::render::scene::Display;
use crate::sound::output::Speaker;
use crate::xr::error::XrError;
use crate::xr::graphics::GraphicsBinding;
use crate::xr::input::actions::HANDS;
use crate::xr::progress::Progress;
use crate::xr::runtime::events::{EventQueue, Polled, RemotingEvent};
use crate::xr::session::Session;
use crate::xr::session_end::SessionEnd;
use crate::xr::sys::speech::{SpeechEvent, recognizer_state, recognizer_state_name};

/// How long to idle between event polls while the session is not running.
const IDLE_POLL: Duration = Duration::from_millis(10);

/// What the loop leaves for the run's report.
#[derive(Debug, Clone, Default)]
pub struct LoopRecord {
    /// The fields every run reports (frames, seeds, reseeds, timings...).
    pub run: RunReport,
    /// Every session state the runtime reported, in order.
    pub session_states: Vec<String>,
    /// Whether the hologram was pinned with a spatial anchor.
    pub anchored: bool,
    /// Every command applied, as `commands.jsonl` holds them.
    pub command_log: Option<CommandLog>,
    /// Frames that also drew the first-person observer view (Mixed Reality Capture).
    pub observer_frames: u64,
}

/// What the loop records as it goes. It is shared with the watchdog, which
/// may have to write the report while the loop's thread is stuck in a
/// runtime call: the loop locks it only between runtime calls, never
/// across one, so the watchdog can always take it.
#[derive(Debug)]
pub struct LoopRecorder {
    /// Seeds, reseeds, timings: the run's report in the making.
    run: RunRecorder,
    /// Every session state the runtime reported, in order (and
    /// "INSTANCE_LOSS_PENDING" when it announced its own end).
    states_seen: Vec<String>,
    /// Whether the hologram is pinned with a spatial anchor.
    anchored: bool,
    /// The app's world as the report needs it, as of its latest update.
    world: WorldSummary,
    /// Frames that also drew the observer view.
    observer_frames: u64,
}

impl LoopRecorder {
    /// The record of a run starting from `start`.
    fn new(start: LogStart) -> Self {
        LoopRecorder {
            run: RunRecorder::new(start, 0),
            states_seen: Vec::new(),
            anchored: false,
            world: WorldSummary::default(),
            observer_frames: 0,
        }
    }

    /// What the loop leaves for the report, as of now.
    pub fn record(&self) -> LoopRecord {
        LoopRecord {
            run: self
                .run
                .report_so_far(&self.world, self.run.display_seconds()),
            session_states: self.states_seen.clone(),
            anchored: self.anchored,
            command_log: Some(self.run.command_log()),
            observer_frames: self.observer_frames,
        }
    }
}

/// The loop and what outlives a session.
pub struct FrameLoop<'a> {
    /// The app core (placement, gestures, growth) and the scene it draws.
    driver: FrameDriver,
    /// What the loop records, shared with the watchdog.
    recorder: Arc<Mutex<LoopRecorder>>,
    /// Why the loop asked the runtime to end the session, once it did.
    exit_requested: Option<SessionEnd>,
    /// The runtime announced the session's or its own loss.
    lost: Option<SessionEnd>,
    /// The hologram was placed under an earlier session: pin it with an
    /// anchor in this one on its first frame.
    reanchor: bool,
    /// Why the Holographic Remoting connection dropped, once it did.
    disconnect: Option<u32>,
    /// A voice command heard since the last frame, for the next one.
    voice: Option<VoiceCommand>,
    /// Windows' own speech recognizer, listening for the phrases and the
    /// labels on show when no remoting player recognises speech.
    #[cfg(windows)]
    device_speech: Option<crate::xr::input::windows_speech::Listener>,
    /// Each hand's select and menu buttons as the last frame saw them, to
    /// tell when one goes down.
    buttons_were_down: [[bool; 2]; 2],
    /// The button each hand's ray was on after the last frame (for `RayOn`).
    rays_were_on: [Option<&'static str>; 2],
    /// Where the landscape last grown is kept, and what it says.
    landscape_file: Option<PathBuf>,
    kept_landscape: String,
    /// The shared session the world grows in (`--share`, `--join`). It
    /// outlives OpenXR sessions: a remoting reconnect keeps the peers.
    share: Option<net::Session>,
    /// The port and whether to advertise, for a session the hand menu's
    /// "Share session" hosts.
    share_offer: (u16, bool),
    /// Alone, a session's printed card in view joins that session.
    card_join: net::card_join::CardJoin,
    /// `--frames`: end the session after this many drawn frames.
    frame_limit: Option<u64>,
    /// Raised by Ctrl-C, SIGTERM (and, on Windows, closing the console).
    interrupted: Arc<AtomicBool>,
    /// Told what happens as it happens.
    progress: &'a mut dyn FnMut(Progress),
    /// Where the controls' clicks play (silent without an audio device).
    speaker: Speaker,
}

impl<'a> FrameLoop<'a> {
    /// A loop for `driver`'s app starting from `start`, ending after
    /// `frame_limit` drawn frames (if given) or when `interrupted` is
    /// raised, telling `progress` what happens.
    pub fn new(
        driver: FrameDriver,
        start: LogStart,
        frame_limit: Option<u64>,
        interrupted: Arc<AtomicBool>,
        progress: &'a mut dyn FnMut(Progress),
    ) -> Self {
        FrameLoop {
            recorder: Arc::new(Mutex::new(LoopRecorder::new(start))),
            driver,
            exit_requested: None,
            lost: None,
            reanchor: false,
            disconnect: None,
            voice: None,
            #[cfg(windows)]
            device_speech: None,
            buttons_were_down: [[false; 2]; 2],
            rays_were_on: [None; 2],
            frame_limit,
            interrupted,
            progress,
            landscape_file: None,
            kept_landscape: String::new(),
            share: None,
            share_offer: (net::DEFAULT_SHARE_PORT, true),
            card_join: net::card_join::CardJoin::default(),
            // Opened once for the run, whichever sessions it drives.
            speaker: Speaker::open(),
        }
    }

    /// Listens for voice commands with Windows' own speech recognition
    /// (the packaged HoloLens app, or a local runtime on a PC): for runs
    /// with no remoting player to recognise speech for the app. Returns at
    /// once; a recognizer that cannot start is one log line.
    #[cfg(windows)]
    pub fn listen_on_device(&mut self) {
        let on_show = self.driver.app().buttons().iter();
        self.device_speech = crate::xr::input::windows_speech::Listener::start(
            on_show.map(|button| button.action.label()),
        );
    }

    /// Grows the world in `share` (whose role the app already has).
    pub fn share_in(&mut self, share: Option<net::Session>) {
        self.share = share;
    }

    /// Where a session the hand menu's "Share session" hosts listens, and
    /// whether it is advertised on the local network.
    pub fn offer_sharing(&mut self, port: u16, listed: bool) {
        self.share_offer = (port, listed);
    }

    /// Hosts a session with a new code from where the world stands (the
    /// hand menu's "Share session"), unless it is in one; why not, in one
    /// line, and the run goes on alone.
    fn host_from_here(&mut self) {
        if self.share.is_some() {
            return;
        }
        let (port, listed) = self.share_offer;
        let so_far = self.locked_recorder().run.command_log();
        match net::open::host_from_here(self.driver.app_mut(), &so_far, port, listed) {
            Ok((share, line)) => {
                (self.progress)(Progress::Shared(line));
                self.share = Some(share);
            }
            Err(why) => log::warn!("cannot host a session: {why}"),
        }
    }

    /// Takes a join by card that finished: the host's world grows in place
    /// of this headset's, in the session; or one line saying why not (a
    /// failed join, or a host growing a map of another size than the one
    /// the renderer was made for), and the headset goes on alone.
    fn join_by_card(&mut self, joined: Result<net::card_join::JoinedByCard, String>) {
        let (width, height) = self.grid_size();
        let grid = (width as usize, height as usize);
        match joined.and_then(|joined| joined.app(grid).map(|app| (joined, app))) {
            Ok((joined, app)) => {
                self.driver = FrameDriver::new(app);
                self.locked_recorder().run.grow_from(joined.start);
                let mut share = joined.session;
                self.tell_share_notes(&mut share);
                self.share = Some(share);
            }
            Err(line) => (self.progress)(Progress::Shared(line)),
        }
    }

    /// Leaves the shared session, if in one: what it did, who took part.
    pub fn leave_share(&mut self) -> Option<(ShareReport, Vec<PeerRecord>)> {
        let mut share = self.share.take()?;
        self.tell_share_notes(&mut share);
        Some(share.finish())
    }

    /// Passes the shared session's new lines on.
    fn tell_share_notes(&mut self, share: &mut net::Session) {
        for line in share.take_notes() {
            (self.progress)(Progress::Shared(line));
        }
    }

    /// Keeps the name of the landscape growing in `file` whenever it
    /// differs from what the file says, for the next run without `--recipe`.
    pub fn keep_landscape_in(&mut self, file: Option<PathBuf>) {
        self.kept_landscape = file
            .as_ref()
            .and_then(|file| std::fs::read_to_string(file).ok())
            .map(|kept| kept.trim().to_owned())
            .unwrap_or_default();
        self.landscape_file = file;
    }

    /// Writes the landscape's name to the landscape file when it changed;
    /// a file that cannot be written is one warning.
    fn keep_landscape(&mut self) {
        let name = self.driver.app().world().recipe_name();
        let Some(file) = &self.landscape_file else {
            return;
        };
        if name == self.kept_landscape {
            return;
        }
        self.kept_landscape = name.into();
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| atomic_file::write(file, format!("{name}\n").as_bytes()));
        if let Err(error) = written {
            log::warn!("the landscape is not kept in {}: {error}", file.display());
        }
    }

    /// "Save terrain": `save-NNN/` beside the kept landscape (the state
    /// folder: the package's LocalState on a HoloLens), without a picture
    /// (the swapchain images are the runtime's to show, not to read back);
    /// a failure is one line and the session goes on.
    fn save_terrain(&self) {
        let Some(folder) = self.landscape_file.as_deref().and_then(Path::parent) else {
            log::warn!("the terrain is not saved: this run keeps nothing (no state folder)");
            return;
        };
        let log = self.locked_recorder().run.command_log();
        match crate::save::save_terrain(folder, &log, None) {
            Ok(saved) => log::info!("saved the terrain into {}", saved.display()),
            Err(error) => log::warn!("{error}"),
        }
    }

    /// Frames drawn so far, over every session.
    pub fn frames_drawn(&self) -> u64 {
        self.locked_recorder().run.frames()
    }

    /// Why the Holographic Remoting connection dropped under the last
    /// session, if the runtime said so; asking clears it.
    pub fn take_disconnect(&mut self) -> Option<u32> {
        self.disconnect.take()
    }

    /// Tells the caller what happened (e.g. the link's remoting events).
    pub fn tell(&mut self, progress: Progress) {
        (self.progress)(progress);
    }

    /// The heightmap's size, which the renderer's grid must have.
    pub fn grid_size(&self) -> (u32, u32) {
        let heights = self.driver.app().heightmap();
        (heights.width() as u32, heights.height() as u32)
    }

    /// Runs `session` until it ends and says how it ended: also when the
    /// runtime stopped under it (instance or session lost, runtime
    /// failure), which ends the loop like a proper end; any other error is
    /// returned.
    pub fn run<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<SessionEnd, XrError> {
        self.lost = None;
        self.locked_recorder().anchored = false;
        self.reanchor = self.driver.app().placement().is_some();
        match self.frames(session, events) {
            Ok(()) => Ok(self
                .lost
                .or(self.exit_requested)
                .unwrap_or(SessionEnd::RuntimeExit)),
            Err(error) => error.into_session_end(),
        }
    }

    /// What the loop records, for the report (at the end, or the
    /// watchdog's before it).
    pub fn shared_recorder(&self) -> Arc<Mutex<LoopRecorder>> {
        Arc::clone(&self.recorder)
    }

    /// The record, locked: only ever for a statement between runtime calls.
    fn locked_recorder(&self) -> MutexGuard<'_, LoopRecorder> {
        self.recorder.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Events, then a frame while the session runs, until the session is over.
    fn frames<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<(), XrError> {
        loop {
            if self.exit_requested.is_none()
                && let Some(reason) = self.exit_reason()
            {
                self.exit_requested = Some(reason);
                if !session.request_exit()? {
                    return Ok(());
                }
            }
            if !self.handle_events(session, events)? {
                return Ok(());
            }
            if session.status().running {
                self.frame(session)?;
            } else {
                std::thread::sleep(IDLE_POLL);
            }
        }
    }

    /// Why the session should end now, if it should.
    fn exit_reason(&self) -> Option<SessionEnd> {
        if self.frame_limit_reached() {
            Some(SessionEnd::FrameLimit)
        } else if self.interrupted.load(Ordering::Relaxed) {
            Some(SessionEnd::Interrupted)
        } else {
            None
        }
    }

    /// Whether `--frames` frames have been drawn.
    fn frame_limit_reached(&self) -> bool {
        self.frame_limit
            .is_some_and(|limit| self.locked_recorder().run.frames() >= limit)
    }

    /// Handles the queued events; false once the session is over.
    fn handle_events<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        events: &mut EventQueue,
    ) -> Result<bool, XrError> {
        while let Some(polled) = events.next()? {
            let event = match polled {
                Polled::Core(event) => event,
                // Only a remoting runtime sends these; what it does to the
                // session after a disconnect arrives as session events, and
                // connecting is the remoting link's (it reports connections).
                Polled::Remoting(RemotingEvent::Disconnected(reason)) => {
                    self.disconnect = Some(reason);
                    (self.progress)(Progress::RemotingDisconnected { reason });
                    continue;
                }
                Polled::Remoting(event) => {
                    log::info!("remoting event {event:?}");
                    continue;
                }
                Polled::Speech(event) => {
                    self.follow_speech(session, event)?;
                    continue;
                }
            };
            match event {
                xr::Event::SessionStateChanged(change) if change.session() != session.handle() => {
                    log::info!("a state change of an earlier session, ignored");
                }
                xr::Event::SessionStateChanged(change) => {
                    let state = change.state();
                    let name = state_name(state);
                    log::info!("session state {name}");
                    self.locked_recorder().states_seen.push(name.into());
                    (self.progress)(Progress::SessionState(name));
                    session.state_changed(state)?;
                    match state {
                        xr::SessionState::EXITING => return Ok(false),
                        xr::SessionState::LOSS_PENDING => {
                            self.lost = Some(SessionEnd::SessionLost);
                            return Ok(false);
                        }
                        _ => {}
                    }
                }
                xr::Event::InstanceLossPending(_) => {
                    // Logged only: the run's one line comes from the caller.
                    log::info!("the OpenXR runtime is going away (instance loss pending)");
                    self.locked_recorder()
                        .states_seen
                        .push("INSTANCE_LOSS_PENDING".into());
                    self.lost = Some(SessionEnd::InstanceLost);
                    return Ok(false);
                }
                xr::Event::InteractionProfileChanged(_) => {
                    for (hand, profile) in HANDS.iter().zip(session.interaction_profiles()?) {
                        log::info!("interaction profile of {hand}: {profile}");
                    }
                }
                xr::Event::EventsLost(lost) => {
                    log::warn!("{} OpenXR events lost", lost.lost_event_count());
                }
                _ => {}
            }
        }
        Ok(true)
    }

    /// Follows the player's speech recognizer: a phrase it recognised is
    /// the next frame's voice command when it is one.
    fn follow_speech<B: GraphicsBinding>(
        &mut self,
        session: &Session<B>,
        event: SpeechEvent,
    ) -> Result<(), XrError> {
        match event {
            SpeechEvent::Recognized { packet_id } => {
                let Some(text) = session.recognized_text(packet_id)? else {
                    return Ok(());
                };
                let command = VoiceCommand::recognize(&text);
                log::info!("heard \"{text}\": {command:?}");
                self.voice = self.voice.or(command);
            }
            SpeechEvent::RecognizerState {
                state: recognizer_state::INITIALIZATION_FAILED,
                message,
            } => log::warn!(
                "the Remoting Player's speech recognizer did not start ({message}); voice commands are off"
            ),
            SpeechEvent::RecognizerState { state, .. } => {
                log::info!("speech recognizer {}", recognizer_state_name(state));
            }
        }
        Ok(())
    }

    /// One frame: wait for it, track, the app core, draw when the runtime
    /// asks (and `--frames` is not reached), end it.
    fn frame<B: GraphicsBinding>(&mut self, session: &mut Session<B>) -> Result<(), XrError> {
        let frame_state = session.wait_frame()?;
        session.begin_frame()?;
        let time = frame_state.predicted_display_time;

        #[cfg(windows)]
        if self.voice.is_none()
            && let Some(listener) = &self.device_speech
        {
            self.voice = listener.heard();
        }
        let input = FrameInput {
            voice: self.voice.take(),
            ..session.track(time)?
        };
        for hand in Hand::BOTH {
            let hand_input = &input.hands[hand.index()];
            let was_down = &mut self.buttons_were_down[hand.index()];
            for (button, (state, told)) in [
                (hand_input.select, Progress::SelectPressed(hand)),
                (hand_input.menu, Progress::MenuPressed(hand)),
            ]
            .into_iter()
            .enumerate()
            {
                let down = state == Some(true);
                if down && !was_down[button] {
                    (self.progress)(told);
                }
                was_down[button] = down;
            }
        }
        if let Some(share) = self.share.as_mut() {
            share.before_frame(self.driver.app_mut());
        } else if let Some(line) = self
            .card_join
            .look(input.markers.as_deref().unwrap_or_default())
        {
            (self.progress)(Progress::Shared(line));
        }
        let (output, markers_seen) = {
            let mut recorder = self.recorder.lock().unwrap_or_else(PoisonError::into_inner);
            let markers_before = recorder.run.markers_seen().len();
            let output = self.driver.update(&input, &mut recorder.run);
            // Only a replay can diverge, and the OpenXR loop never replays.
            let output = output.expect("a live run follows no log");
            recorder.world.update_from(self.driver.app());
            (
                output,
                recorder.run.markers_seen()[markers_before..].to_vec(),
            )
        };
        for hand in Hand::BOTH {
            let on = self.driver.app().ray_on(hand);
            let was_on = &mut self.rays_were_on[hand.index()];
            if on != *was_on {
                *was_on = on;
                (self.progress)(Progress::RayOn { hand, label: on });
            }
        }
        for marker in markers_seen {
            (self.progress)(Progress::MarkerSeen {
                text: marker.text,
                position: marker.position,
            });
        }
        // "See it, say it": the recognizer hears the labels now on show.
        #[cfg(windows)]
        if let Some(listener) = self.device_speech.as_mut() {
            let on_show = self.driver.app().buttons().iter();
            listener.show(on_show.map(|button| button.action.label()));
        }
        if let Some(mut share) = self.share.take() {
            share.after_frame(self.driver.app_mut(), &output);
            self.tell_share_notes(&mut share);
            self.share = Some(share);
        } else if let Some(joined) = self.card_join.finished() {
            self.join_by_card(joined);
        }
        self.act_on_events(session, &output, input.head, time)?;
        self.keep_landscape();
        if self.reanchor
            && let Some(placement) = self.driver.app().placement()
        {
            self.reanchor = false;
            let anchored = session.anchor(&placement, None, time)?;
            self.locked_recorder().anchored = anchored;
        }

        // The blend mode the session chose decides the look: see-through
        // (additive) or covering the world (opaque).
        self.driver
            .set_display(display_for(session.facts().blend_mode));
        let drawing = frame_state.should_render && !self.frame_limit_reached();
        let render_ms = if drawing {
            self.driver.draw(&output, |scene| session.draw(scene))?
        } else {
            None
        };
        // Mixed Reality Capture: the camera's own view, at the eyes' display
        // time, with every height (its renderer draws only while it is active).
        if render_ms.is_some()
            && session.observer_active()
            && let Some(scene) = self.driver.scene_with_every_height(&output)
            && session.draw_observer(&scene, time)?
        {
            self.locked_recorder().observer_frames += 1;
        }
        session.end_frame(time, render_ms.is_some())?;
        if let Some(render_ms) = render_ms {
            let frames = {
                let mut recorder = self.locked_recorder();
                recorder.run.drawn(render_ms);
                recorder.run.frames()
            };
            (self.progress)(Progress::FrameDrawn(frames));
        }
        Ok(())
    }

    /// Answers what the app did this frame: pins a settled placement with
    /// an anchor (and keeps it after a manipulation), tells of a reseed and
    /// pulses the hand that asked for it, clicks from a button's place as
    /// heard from `head` (the head this frame).
    fn act_on_events<B: GraphicsBinding>(
        &mut self,
        session: &mut Session<B>,
        output: &FrameOutput,
        head: Option<Pose>,
        time: xr::Time,
    ) -> Result<(), XrError> {
        for event in &output.events {
            match *event {
                AppEvent::Placed { placement, cause } => {
                    let anchored = session.anchor(&placement, Some(cause), time)?;
                    self.locked_recorder().anchored = anchored;
                    (self.progress)(Progress::Placed {
                        cause,
                        position: placement.pose.position.to_array(),
                        scale: placement.scale,
                    });
                }
                AppEvent::Reseeded { seed, cause, hand } => {
                    log::info!(
                        "reseeded ({}, {hand:?} hand) with seed {seed}",
                        cause.name()
                    );
                    (self.progress)(Progress::Reseeded { cause, seed });
                    // Only the hand that asked feels the answer.
                    if let Some(hand) = hand {
                        session.pulse(hand)?;
                    }
                }
                AppEvent::Edited {
                    kind,
                    hand,
                    ignored,
                } => match ignored {
                    None => log::info!("edited the terrain ({kind:?}, {hand:?} hand)"),
                    Some(why) => log::info!("ignored a {kind:?}: {}", why.reason()),
                },
                AppEvent::Undid { undone } => match undone {
                    Some(undone) => log::info!("undid the last {undone:?}"),
                    None => log::info!("nothing left to undo"),
                },
                AppEvent::Growth(state) => log::info!(
                    "growth {} at {} iterations per second",
                    if state.paused { "paused" } else { "goes on" },
                    state.iterations_per_second
                ),
                AppEvent::Pressed(press) => {
                    log::info!(
                        "pressed \"{}\" ({:?}): {}",
                        press.label,
                        press.how,
                        press.action.did()
                    );
                    (self.progress)(Progress::Pressed {
                        label: press.label,
                        how: press.how.name(),
                    });
                }
                AppEvent::SaveAsked => self.save_terrain(),
                AppEvent::ShareAsked => self.host_from_here(),
                AppEvent::Click { at } => self.speaker.click(at, head),
                AppEvent::Weathered => log::info!("weathering the land now"),
            }
        }
        Ok(())
    }
}

/// The state's name as the OpenXR specification writes it (without `XR_SESSION_STATE_`).
fn state_name(state: xr::SessionState) -> &'static str {
    match state {
        xr::SessionState::IDLE => "IDLE",
        xr::SessionState::READY => "READY",
        xr::SessionState::SYNCHRONIZED => "SYNCHRONIZED",
        xr::SessionState::VISIBLE => "VISIBLE",
        xr::SessionState::FOCUSED => "FOCUSED",
        xr::SessionState::STOPPING => "STOPPING",
        xr::SessionState::LOSS_PENDING => "LOSS_PENDING",
        xr::SessionState::EXITING => "EXITING",
        _ => "UNKNOWN",
    }
}

/// The look for frames blended with the world by `mode`: only an opaque
/// display shows black as black; additive and alpha-blended ones see
/// through it, so they take the additive look's brightness floor.
fn display_for(mode: xr::EnvironmentBlendMode) -> Display {
    if mode == xr::EnvironmentBlendMode::OPAQUE {
        Display::Opaque
    } else {
        Display::Additive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_opaque_display_gets_the_opaque_look() {
        use xr::EnvironmentBlendMode as Mode;
        assert_eq!(display_for(Mode::OPAQUE), Display::Opaque);
        assert_eq!(display_for(Mode::ADDITIVE), Display::Additive);
        assert_eq!(display_for(Mode::ALPHA_BLEND), Display::Additive);
    }
}
