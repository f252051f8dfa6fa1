//! The one run loop: what every platform's frame does around the app's update (the shared session in and out, joining by a card, "Share session", "Save terrain", keeping the placement and the landscape), written once; a platform supplies only its clock, input, drawing and effects.
//!
//! A platform (the simulator, the OpenXR session, the test runtime's
//! wearer) builds the frame's [`FrameInput`] and calls [`RunLoop::frame`]
//! with its [`Platform`]: the run loop hands in what the shared session
//! brought (as values, [`SessionIn`]), updates the app and notes it in the
//! run's record, hands the session what the frame made, starts a session
//! when the wearer asked ("Share session") or a card was seen, asks the
//! platform for the effects (anchors, haptics, clicks), draws through it,
//! and saves when asked, with the picture the platform just drew.
//!
//! The network is behind two traits, [`Network`] and [`SharedSession`],
//! which `crate::net` implements: the app never names the network, and the
//! network never names the app; values cross between them.
pub mod driver;
pub mod log;
pub mod recorder;
pub mod report;
pub mod save;
pub mod scene;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use glam::Vec3;

use self::driver::{Diverged, FrameDriver};
use self::log::{CommandLog, LogStart};
use self::recorder::RunRecorder;
use self::save::Picture;
use crate::app::controls::SAVE_ROWS;
use crate::app::frame::{AppEvent, FrameInput, FrameOutput, Marker};
use crate::app::frame::{SaveOutcome, SaveSummary};
use crate::app::shared::session::{Role, SessionIn};
use crate::app::update::App;
use crate::app::world::placement::{Placement, PlacementCause};
use crate::atomic_file;
use crate::input::{Hand, Pose};
use crate::render::scene::{Display, FrameScene};
use crate::sound::Sound;

/// This headset's end of a shared session, as the run loop drives it.
pub trait SharedSession {
    /// Its part: host or peer.
    fn role(&self) -> Role;
    /// The session's code.
    fn code(&self) -> String;
    /// Before the app's update: what came in since the last frame, as values.
    fn before_frame(&mut self, into: &mut Vec<SessionIn>);
    /// After the app's update: what the frame made goes out.
    fn after_frame(&mut self, output: &FrameOutput);
    /// Lines for the wearer since the last call.
    fn take_notes(&mut self) -> Vec<String>;
    /// Ends this headset's part now (the host says goodbye to every peer
    /// and stops listening; a peer says goodbye to the host); what it did
    /// is still there for its report.
    fn leave(&mut self);
}

/// How a headset in no session comes to be in one while it runs.
pub trait Network {
    /// The session it makes.
    type Session: SharedSession;
    /// Hosts a session from where the world stands ("Share session"):
    /// `so_far`'s commands become the shared order's first, `grew`
    /// iterations are done, and `checksums` are those kept alone. The
    /// session and its line, or why not.
    fn host_from_here(
        &mut self,
        so_far: &CommandLog,
        grew: usize,
        checksums: Vec<(u64, u64)>,
    ) -> Result<(Self::Session, String), String>;
    /// Looks at the printed codes in sight: a session's card not tried yet
    /// starts joining that session (off the frame's thread); the line to
    /// say when it does.
    fn look_for_cards(&mut self, markers: &[Marker]) -> Option<String>;
    /// A join by card that has finished: the session and the host's
    /// start, or the line saying why not.
    fn joined_by_card(&mut self) -> Option<Result<(Self::Session, LogStart), String>>;
}

/// What a platform does for the run loop: draw, and the effects the app
/// asks of it.
pub trait Platform {
    /// Its error; a replay that leaves its log is one too.
    type Error: From<Diverged>;
    /// Whether this frame is drawn (an OpenXR runtime may say not).
    fn should_draw(&self) -> bool {
        true
    }
    /// Draws `scene`.
    fn draw(&mut self, scene: &FrameScene<'_>) -> Result<(), Self::Error>;
    /// A picture of the frame just drawn, for a save, where the platform
    /// can read one back.
    fn picture(&mut self) -> Result<Option<Picture>, Self::Error>;
    /// The hologram's placement settled (`cause` says how): pin it, and
    /// keep it for the next run when a manipulation made it.
    fn placed(&mut self, placement: &Placement, cause: PlacementCause) -> Result<(), Self::Error>;
    /// A short haptic pulse on `hand`, where the platform has one.
    fn pulse(&mut self, _hand: Hand) -> Result<(), Self::Error> {
        Ok(())
    }
    /// `sound` from `at` (metres, the platform's space), heard from `head`.
    fn sound(&mut self, _sound: Sound, _at: Vec3, _head: Option<Pose>) {}
    /// One line about the shared session, for the wearer.
    fn shared_line(&mut self, line: String);
}

/// One frame as the run loop ran it.
#[derive(Debug)]
pub struct Frame {
    /// What the app made of it.
    pub output: FrameOutput,
    /// The CPU milliseconds drawing took, when it was drawn.
    pub drawn_ms: Option<f64>,
}

/// The app, its record, and the shared session it is in, run frame by frame.
pub struct RunLoop<N: Network> {
    driver: FrameDriver,
    /// Shared with a watchdog that writes the record when the platform hangs.
    recorder: Arc<Mutex<RunRecorder>>,
    session: Option<N::Session>,
    /// `None`: the run never joins or hosts (a replay, a copy that only
    /// follows).
    network: Option<N>,
    /// Values for the next frame: a session begun between frames.
    incoming: Vec<SessionIn>,
    /// The session the wearer left ("Leave session"), kept for its report.
    left: Option<N::Session>,
    /// Where "Save terrain" writes `save-NNN/`.
    save_folder: Option<PathBuf>,
    /// The saves the history page lists, newest first: their folders, and
    /// what the app is shown of them.
    saves: (Vec<PathBuf>, Option<Arc<[SaveSummary]>>),
    /// Where the landscape grown now is kept for the next run, and what it holds.
    landscape: Option<(PathBuf, String)>,
    /// How the last save went, for the next frame's toast.
    saved: Option<SaveOutcome>,
}

impl<N: Network> RunLoop<N> {
    /// A run of `driver`'s app from `start`, `expected_frames` long if known.
    pub fn new(driver: FrameDriver, start: LogStart, expected_frames: usize) -> Self {
        RunLoop {
            driver,
            recorder: Arc::new(Mutex::new(RunRecorder::new(start, expected_frames))),
            session: None,
            left: None,
            network: None,
            incoming: Vec::new(),
            save_folder: None,
            saves: (Vec::new(), None),
            landscape: None,
            saved: None,
        }
    }

    /// Takes part in `session` from the first frame on.
    pub fn in_session(mut self, session: Option<N::Session>) -> Self {
        if let Some(session) = session {
            self.begin(session);
        }
        self
    }

    /// Hosts or joins through `network` when the wearer or a card asks.
    pub fn offering(mut self, network: N) -> Self {
        self.network = Some(network);
        self
    }

    /// Notes in the record that the world went on from the save in
    /// `folder`, when its start holds a history (a folder that was not a
    /// save gave a world of its own, and nothing is noted).
    pub fn opened_from(self, folder: Option<&std::path::Path>) -> Self {
        let commands = {
            let record = self.record();
            let opened = &record.command_log().start.opened;
            opened.last().map(|run| run.replayed().count())
        };
        if let (Some(folder), Some(commands)) = (folder, commands) {
            self.record().opened(folder, commands);
        }
        self
    }

    /// "Save terrain" writes into `folder`; without one it says so.
    pub fn saving_into(mut self, folder: Option<PathBuf>) -> Self {
        self.save_folder = folder;
        self.list_saves();
        self
    }

    /// Reads the newest saves again, for the history page.
    fn list_saves(&mut self) {
        self.saves = match &self.save_folder {
            Some(folder) => {
                let (folders, summaries) = save::summaries(folder, SAVE_ROWS);
                (folders, Some(summaries.into()))
            }
            None => (Vec::new(), None),
        };
    }

    /// Keeps the name of the landscape grown in `file` whenever it changes.
    pub fn keeping_landscape_in(mut self, file: Option<PathBuf>) -> Self {
        self.landscape = file.map(|file| {
            let kept = std::fs::read_to_string(&file)
                .map(|kept| kept.trim().to_owned())
                .unwrap_or_default();
            (file, kept)
        });
        self
    }

    /// The display the frames are drawn for from now on.
    pub fn set_display(&mut self, display: Display) {
        self.driver.set_display(display);
    }

    /// The app.
    pub fn app(&self) -> &App {
        self.driver.app()
    }

    /// The frame driver, for a second camera's scene.
    pub fn driver(&self) -> &FrameDriver {
        &self.driver
    }

    /// The shared session, while in one.
    pub fn session(&self) -> Option<&N::Session> {
        self.session.as_ref()
    }

    /// Leaves the shared session, if in one: the session, to finish.
    pub fn leave_session(&mut self) -> Option<N::Session> {
        self.session.take()
    }

    /// The run's record, shared.
    pub fn recorder(&self) -> Arc<Mutex<RunRecorder>> {
        Arc::clone(&self.recorder)
    }

    /// The run's record, locked.
    pub fn record(&self) -> MutexGuard<'_, RunRecorder> {
        self.recorder.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one frame of `input` on `platform`.
    pub fn frame<P: Platform>(
        &mut self,
        mut input: FrameInput,
        platform: &mut P,
    ) -> Result<Frame, P::Error> {
        input.shared = std::mem::take(&mut self.incoming);
        input.saves = self.saves.1.clone();
        input.saved = self.saved.take();
        match (&mut self.session, &mut self.network) {
            (Some(session), _) => session.before_frame(&mut input.shared),
            (None, Some(network)) => {
                let markers = input.markers.as_deref().unwrap_or_default();
                if let Some(line) = network.look_for_cards(markers) {
                    platform.shared_line(line);
                }
            }
            (None, None) => {}
        }
        let output = {
            let mut recorder = self.recorder.lock().unwrap_or_else(PoisonError::into_inner);
            self.driver.update(&input, &mut recorder)?
        };
        match &mut self.session {
            Some(session) => {
                session.after_frame(&output);
                for line in session.take_notes() {
                    platform.shared_line(line);
                }
            }
            None => self.join_or_host(&output, platform),
        }
        if output.events.contains(&AppEvent::LeaveAsked) {
            self.leave_asked(platform);
        }
        for event in &output.events {
            match *event {
                AppEvent::Placed { placement, cause } => platform.placed(&placement, cause)?,
                // Only the hand that asked feels the answer.
                AppEvent::Reseeded {
                    hand: Some(hand), ..
                } => platform.pulse(hand)?,
                AppEvent::Sound { sound, at } => platform.sound(sound, at, input.head),
                _ => {}
            }
        }
        self.keep_landscape();
        let drawn_ms = match platform.should_draw() {
            true => self.driver.draw(&output, |scene| platform.draw(scene))?,
            false => None,
        };
        if let Some(ms) = drawn_ms {
            self.record().drawn(ms);
        }
        if output.events.contains(&AppEvent::SaveAsked) {
            let picture = match drawn_ms {
                Some(_) => platform.picture()?,
                None => None,
            };
            self.save(picture);
            self.list_saves();
        }
        for event in &output.events {
            if let AppEvent::OpenAsked(row) = *event {
                self.open(row);
            }
        }
        Ok(Frame { output, drawn_ms })
    }

    /// "Leave session": ends this headset's part in its session, tells
    /// the app from the next frame on, and keeps the session for the
    /// run's report. Out of a session, nothing.
    fn leave_asked(&mut self, platform: &mut impl Platform) {
        let Some(mut session) = self.session.take() else {
            return;
        };
        session.leave();
        for line in session.take_notes() {
            platform.shared_line(line);
        }
        platform.shared_line(format!("left session {}", session.code()));
        self.incoming.push(SessionIn::Left);
        self.left = Some(session);
    }

    /// In no session: a join by card that finished, or "Share session".
    fn join_or_host(&mut self, output: &FrameOutput, platform: &mut impl Platform) {
        let Some(network) = self.network.as_mut() else {
            return;
        };
        if let Some(joined) = network.joined_by_card() {
            match joined.and_then(|(session, start)| self.join(session, start)) {
                Ok(()) => self.tell_notes(platform),
                Err(line) => platform.shared_line(line),
            }
        } else if output.events.contains(&AppEvent::ShareAsked) {
            let app = self.driver.app();
            let (grew, checksums) = (app.iterations_done(), app.checksums_so_far().to_vec());
            let so_far = self.record().command_log();
            let hosted = match self.network.as_mut() {
                Some(network) => network.host_from_here(&so_far, grew, checksums),
                None => return,
            };
            match hosted {
                Ok((session, line)) => {
                    platform.shared_line(line);
                    self.begin(session);
                }
                Err(why) => platform.shared_line(format!("cannot host a session: {why}")),
            }
        }
    }

    /// Grows the world of `session`'s host from its `start` in place of
    /// this headset's, when it can: its renderer was made for its own map
    /// size. The line saying why not, otherwise.
    fn join(&mut self, session: N::Session, start: LogStart) -> Result<(), String> {
        let heights = self.driver.app().heightmap();
        let own = (heights.width(), heights.height());
        let code = session.code();
        if (start.width, start.height) != own {
            return Err(format!(
                "cannot join session {code} by its card: it grows a {}x{} map, this headset {}x{}; join it with --join {code} instead",
                start.width, start.height, own.0, own.1
            ));
        }
        self.driver
            .grow_world_from(&start)
            .map_err(|error| format!("cannot join session {code} by its card: {error}"))?;
        self.record().grow_from(start);
        self.begin(session);
        Ok(())
    }

    /// From the next frame on, the app takes part in `session`.
    fn begin(&mut self, session: N::Session) {
        self.incoming.push(SessionIn::Began {
            role: session.role(),
            code: session.code(),
        });
        self.session = Some(session);
    }

    fn tell_notes(&mut self, platform: &mut impl Platform) {
        if let Some(session) = self.session.as_mut() {
            for line in session.take_notes() {
                platform.shared_line(line);
            }
        }
    }

    /// Grows the world of the save listed on `row` in place of this one,
    /// the hologram staying where it is; one line when it cannot (no such
    /// save, not a save, another map size, a shared session).
    fn open(&mut self, row: usize) {
        let Some(folder) = self.saves.0.get(row).cloned() else {
            ::log::warn!("there is no save on row {} of the list", row + 1);
            return;
        };
        if self.session.is_some() {
            ::log::warn!(
                "cannot open {} in a shared session: everyone grows the host's world; leave the session first",
                folder.display()
            );
            return;
        }
        let log = match save::open_save(&folder) {
            Ok(log) => log,
            Err(line) => {
                ::log::warn!("{line}; the world goes on");
                return;
            }
        };
        let heights = self.driver.app().heightmap();
        let own = (heights.width(), heights.height());
        if (log.start.width, log.start.height) != own {
            ::log::warn!(
                "cannot open {} here: it grows a {}x{} map, this run {}x{}; run with --open {} instead",
                folder.display(),
                log.start.width,
                log.start.height,
                own.0,
                own.1,
                folder.display()
            );
            return;
        }
        let start = LogStart::opening(&log);
        let placement = self.driver.app().world().placement();
        if let Err(error) = self.driver.grow_world_from(&start) {
            ::log::warn!("cannot open {}: {error}", folder.display());
            return;
        }
        self.record().grow_from(start.clone());
        let commands = start.opened.last().map_or(0, |run| run.replayed().count());
        self.record().opened(&folder, commands);
        if let Some(placement) = placement {
            self.driver.keep_placement(placement);
        }
        ::log::info!("opened {}", folder.display());
    }

    /// Writes `save-NNN/` into the save folder, one line either way; how
    /// it went reaches the app on the next frame (its toast) and the record
    /// (a failure's press did `save failed`).
    fn save(&mut self, picture: Option<Picture>) {
        let outcome = match &self.save_folder {
            None => {
                Err("the terrain is not saved: this run keeps nothing (no state folder)".to_owned())
            }
            Some(folder) => {
                let log = self.record().command_log();
                save::save_terrain(folder, &log, picture)
                    .map_err(|error| error.to_string())
                    .map(|saved| {
                        ::log::info!("saved the terrain into {}", saved.display());
                        saved.file_name().map_or_else(
                            || saved.display().to_string(),
                            |name| name.to_string_lossy().into_owned(),
                        )
                    })
            }
        };
        self.saved = Some(match outcome {
            Ok(name) => SaveOutcome::Saved(name),
            Err(why) => {
                ::log::warn!("{why}");
                self.record().save_failed();
                SaveOutcome::Failed(why)
            }
        });
    }

    /// Writes the landscape's name when it changed since it was last kept.
    fn keep_landscape(&mut self) {
        let Some((file, kept)) = self.landscape.as_mut() else {
            return;
        };
        let name = self.driver.app().world().recipe_name();
        if name == kept {
            return;
        }
        *kept = name.into();
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| atomic_file::write(file, format!("{name}\n").as_bytes()));
        if let Err(error) = written {
            ::log::warn!("the landscape is not kept in {}: {error}", file.display());
        }
    }

    /// Ends the run: the driver (for what the run writes at its end), the
    /// record, and the session (its last lines not taken yet).
    pub fn finish(self) -> Finished<N::Session> {
        let recorder = match Arc::try_unwrap(self.recorder) {
            Ok(mutex) => mutex.into_inner().unwrap_or_else(PoisonError::into_inner),
            Err(shared) => shared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        };
        Finished {
            driver: self.driver,
            recorder,
            // The session in at the end, else the one last left.
            session: self.session.or(self.left),
        }
    }
}

/// What a run leaves at its end.
pub struct Finished<S> {
    /// The app, for the terrain it ends with.
    pub driver: FrameDriver,
    /// The run's record.
    pub recorder: RunRecorder,
    /// The shared session it was in at the end, to leave.
    pub session: Option<S>,
}
