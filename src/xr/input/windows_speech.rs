//! The device's own speech recognition, Windows only: Windows.Media.SpeechRecognition's `SpeechRecognizer` listening in a continuous session for the phrases and the labels on show, on a thread of its own, handing what it hears to the frame loop through a channel as the same `VoiceCommand`s the remoting speech gives.
//!
//! Used when no Holographic Remoting player recognises speech for the app:
//! the packaged HoloLens 2 app and the Windows build on a local runtime.
//! The frame loop never waits for it: starting, compiling a new list of
//! phrases and stopping are Windows' asynchronous operations, waited for
//! (at most [`STEP_TIMEOUT`] each) on the listener's thread only. A
//! listener that cannot start or goes wrong logs one line
//! ([`super::device_speech::failure_line`]) and the app goes on without it.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use windows::Foundation::TypedEventHandler;
use windows::Globalization::Language;
use windows::Media::SpeechRecognition::{
    SpeechContinuousRecognitionCompletedEventArgs,
    SpeechContinuousRecognitionResultGeneratedEventArgs, SpeechContinuousRecognitionSession,
    SpeechRecognitionCompilationResult, SpeechRecognitionConfidence,
    SpeechRecognitionListConstraint, SpeechRecognitionResultStatus, SpeechRecognizer,
};
use windows::core::HSTRING;
use windows_collections::IIterable;

use super::device_speech::{
    RESULT_STATUSES, TIMEOUT_EXCEEDED, command_heard, confidence, failure_line, status_name,
};
use super::speech::LANGUAGE;
use crate::app::VoiceCommand;
use crate::app::voice::Vocabulary;

/// The longest wait for one of Windows' asynchronous speech operations: a
/// recognizer that takes longer (or never answers, as an incomplete
/// implementation may) is given up, so the listener's thread ends too.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);

// The values device_speech.rs (tested on Linux) decides by are Windows'.
const _: () = {
    assert!(SpeechRecognitionConfidence::High.0 == confidence::HIGH);
    assert!(SpeechRecognitionConfidence::Medium.0 == confidence::MEDIUM);
    assert!(SpeechRecognitionConfidence::Low.0 == confidence::LOW);
    assert!(SpeechRecognitionConfidence::Rejected.0 == confidence::REJECTED);
    assert!(SpeechRecognitionResultStatus::TimeoutExceeded.0 == TIMEOUT_EXCEEDED);
    assert!(
        SpeechRecognitionResultStatus::MicrophoneUnavailable.0 == RESULT_STATUSES.len() as i32 - 1
    );
};

/// What the frame loop and the session's events tell the listener's thread.
enum Message {
    /// Listen for these phrases from now on.
    Phrases(Vec<String>),
    /// The continuous session ended by itself, with this status.
    Ended(i32),
    /// The frame loop is done: stop listening.
    Stop,
}

/// The frame loop's end of the listener.
pub struct Listener {
    /// Commands heard, oldest first.
    heard: Receiver<VoiceCommand>,
    /// To the listener's thread.
    to_thread: Sender<Message>,
    /// The phrases the thread was last given.
    vocabulary: Vocabulary,
}

impl Listener {
    /// Starts listening for the phrases and `labels` (those on show) on a
    /// thread of its own, and returns at once: whether Windows' recognizer
    /// starts is the thread's to find out (and log). `None`, after one
    /// line, when there is no thread for it.
    pub fn start<'a>(labels: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        let mut vocabulary = Vocabulary::default();
        let first = vocabulary.update(labels).unwrap_or_default();
        let (heard_sender, heard) = mpsc::channel();
        let (to_thread, inbox) = mpsc::channel();
        let events = to_thread.clone();
        let spawned = std::thread::Builder::new()
            .name("speech".into())
            .spawn(move || listen(first, &inbox, events, heard_sender));
        if let Err(error) = spawned {
            log::warn!("voice commands on this device are off: no thread to listen on: {error}");
            return None;
        }
        Some(Listener {
            heard,
            to_thread,
            vocabulary,
        })
    }

    /// The next command heard, if any (one a frame, as remoting gives them).
    pub fn heard(&self) -> Option<VoiceCommand> {
        self.heard.try_recv().ok()
    }

    /// The labels on show this frame: when they ask for other phrases than
    /// the listener was last given, it is given the new list to compile
    /// (on its thread; this returns at once).
    pub fn show<'a>(&mut self, labels: impl IntoIterator<Item = &'a str>) {
        if let Some(phrases) = self.vocabulary.update(labels) {
            // A thread that has ended (it logged why) needs no phrases.
            let _ = self.to_thread.send(Message::Phrases(phrases));
        }
    }
}

impl Drop for Listener {
    /// Tells the thread to stop listening, without waiting for it: a
    /// recognizer that hangs must not hold up the app's end.
    fn drop(&mut self) {
        let _ = self.to_thread.send(Message::Stop);
    }
}

/// Why the listener stopped: the step that failed and Windows' error.
struct Failure {
    step: &'static str,
    /// Windows' error code, when it gave an error (not a status or silence).
    hresult: Option<u32>,
    message: String,
}

impl Failure {
    /// A failure of `step` from Windows' error.
    fn of(step: &'static str) -> impl FnOnce(windows::core::Error) -> Failure {
        move |error| Failure {
            step,
            hresult: Some(error.code().0 as u32),
            message: error.message(),
        }
    }

    /// A failure Windows reported as a status, not an error.
    fn status(step: &'static str, status: SpeechRecognitionResultStatus) -> Failure {
        Failure {
            step,
            hresult: None,
            message: status_name(status.0),
        }
    }

    /// The one line it is.
    fn line(&self) -> String {
        failure_line(self.step, self.hresult, &self.message)
    }
}

/// The listener's thread: starts the recognizer with `first`, then follows
/// the frame loop's lists and the session's end until told to stop.
fn listen(
    first: Vec<String>,
    inbox: &Receiver<Message>,
    events: Sender<Message>,
    heard: Sender<VoiceCommand>,
) {
    let recognizer = match Recognizer::start(&first, events, heard) {
        Ok(recognizer) => recognizer,
        Err(failure) => return log::warn!("{}", failure.line()),
    };
    log::info!(
        "listening on this device for {} phrases in {LANGUAGE} (Windows speech recognition)",
        first.len()
    );
    while let Ok(message) = inbox.recv() {
        // Only the latest list matters: lists queued behind it are skipped.
        let mut phrases = None;
        let mut ended = None;
        let mut stop = false;
        for message in std::iter::once(message).chain(inbox.try_iter()) {
            match message {
                Message::Phrases(list) => phrases = Some(list),
                Message::Ended(status) => ended = Some(status),
                Message::Stop => stop = true,
            }
        }
        if stop {
            break;
        }
        let step = match ended {
            // Windows ends a session that hears nothing for a while; the
            // wearer may speak later, so listen again.
            Some(TIMEOUT_EXCEEDED) => recognizer.restart(),
            Some(status) => {
                return log::warn!(
                    "voice commands on this device are off: the recognition session ended ({})",
                    status_name(status)
                );
            }
            None => Ok(()),
        };
        let step = step.and_then(|()| match &phrases {
            Some(phrases) => recognizer.listen_for(phrases),
            None => Ok(()),
        });
        if let Err(failure) = step {
            return log::warn!("{}", failure.line());
        }
    }
    recognizer.stop();
}

/// Windows' recognizer and its continuous session.
struct Recognizer {
    recognizer: SpeechRecognizer,
    session: SpeechContinuousRecognitionSession,
}

impl Recognizer {
    /// Creates the recognizer for [`LANGUAGE`], compiles `phrases`, and
    /// starts a continuous session whose results go to `heard` and whose
    /// end goes to `events`.
    fn start(
        phrases: &[String],
        events: Sender<Message>,
        heard: Sender<VoiceCommand>,
    ) -> Result<Self, Failure> {
        let language = Language::CreateLanguage(&HSTRING::from(LANGUAGE))
            .map_err(Failure::of("naming the en-US language"))?;
        let recognizer =
            SpeechRecognizer::Create(&language).map_err(Failure::of("creating the recognizer"))?;
        let session = recognizer
            .ContinuousRecognitionSession()
            .map_err(Failure::of("opening the recognition session"))?;
        let recognizer = Recognizer {
            recognizer,
            session,
        };
        recognizer.compile(phrases)?;
        recognizer
            .session
            .ResultGenerated(&TypedEventHandler::new(
                move |_,
                      args: windows::core::Ref<
                    SpeechContinuousRecognitionResultGeneratedEventArgs,
                >| {
                    let result = args.ok()?.Result()?;
                    if result.Status()? != SpeechRecognitionResultStatus::Success {
                        return Ok(());
                    }
                    let text = result.Text()?.to_string_lossy();
                    let confidence = result.Confidence()?.0;
                    let command = command_heard(&text, confidence);
                    log::info!("heard \"{text}\" (confidence {confidence}): {command:?}");
                    if let Some(command) = command {
                        // The frame loop gone, nobody needs it.
                        let _ = heard.send(command);
                    }
                    Ok(())
                },
            ))
            .map_err(Failure::of("following the session's results"))?;
        recognizer
            .session
            .Completed(
                &TypedEventHandler::new(
                    move |_,
                          args: windows::core::Ref<
                        SpeechContinuousRecognitionCompletedEventArgs,
                    >| {
                        let _ = events.send(Message::Ended(args.ok()?.Status()?.0));
                        Ok(())
                    },
                ),
            )
            .map_err(Failure::of("following the session's end"))?;
        recognizer.restart()?;
        Ok(recognizer)
    }

    /// Starts (or starts again) the continuous session.
    fn restart(&self) -> Result<(), Failure> {
        let step = "starting the recognition session";
        let start = self.session.StartAsync().map_err(Failure::of(step))?;
        bounded(step, |done| start.when(done), || start.Cancel())
    }

    /// Makes `phrases` the one constraint and compiles it.
    fn compile(&self, phrases: &[String]) -> Result<(), Failure> {
        let step = "compiling the phrases";
        let words: Vec<HSTRING> = phrases.iter().map(HSTRING::from).collect();
        let list = SpeechRecognitionListConstraint::Create(&IIterable::<HSTRING>::from(words))
            .map_err(Failure::of(step))?;
        let constraints = self.recognizer.Constraints().map_err(Failure::of(step))?;
        constraints.Clear().map_err(Failure::of(step))?;
        constraints.Append(&list).map_err(Failure::of(step))?;
        let compiling = self
            .recognizer
            .CompileConstraintsAsync()
            .map_err(Failure::of(step))?;
        let compiled: SpeechRecognitionCompilationResult =
            bounded(step, |done| compiling.when(done), || compiling.Cancel())?;
        let status = compiled.Status().map_err(Failure::of(step))?;
        if status != SpeechRecognitionResultStatus::Success {
            return Err(Failure::status(step, status));
        }
        Ok(())
    }

    /// Listens for `phrases` from now on: the session is paused (Windows
    /// lets the constraints change only then), they are compiled, and it
    /// resumes.
    fn listen_for(&self, phrases: &[String]) -> Result<(), Failure> {
        let step = "pausing the recognition session";
        let pausing = self.session.PauseAsync().map_err(Failure::of(step))?;
        bounded(step, |done| pausing.when(done), || pausing.Cancel())?;
        self.compile(phrases)?;
        self.session
            .Resume()
            .map_err(Failure::of("resuming the recognition session"))?;
        log::info!("listening for {} phrases", phrases.len());
        Ok(())
    }

    /// Stops the session and closes the recognizer (errors only logged:
    /// the app is ending).
    fn stop(self) {
        let step = "stopping the recognition session";
        let stopped = self
            .session
            .StopAsync()
            .map_err(Failure::of(step))
            .and_then(|stopping| bounded(step, |done| stopping.when(done), || stopping.Cancel()));
        if let Err(failure) = stopped {
            log::info!("{}", failure.line());
        }
        if let Err(error) = self.recognizer.Close() {
            log::info!("closing the speech recognizer: {error}");
        }
    }
}

/// What an asynchronous operation hands its completion callback.
type Done<T> = Box<dyn FnOnce(windows::core::Result<T>) + Send>;

/// Waits at most [`STEP_TIMEOUT`] for an asynchronous operation, which
/// `when` hands a completion callback; past that it is cancelled and
/// `step` failed. Only ever on the listener's thread.
fn bounded<T: Send + 'static>(
    step: &'static str,
    when: impl FnOnce(Done<T>) -> windows::core::Result<()>,
    cancel: impl FnOnce() -> windows::core::Result<()>,
) -> Result<T, Failure> {
    let (sender, receiver) = mpsc::sync_channel(1);
    when(Box::new(move |result| {
        // After a time-out nobody waits for it any more.
        let _ = sender.send(result);
    }))
    .map_err(Failure::of(step))?;
    match receiver.recv_timeout(STEP_TIMEOUT) {
        Ok(result) => result.map_err(Failure::of(step)),
        Err(_) => {
            let _ = cancel();
            Err(Failure {
                step,
                hresult: None,
                message: format!("no answer in {} s", STEP_TIMEOUT.as_secs()),
            })
        }
    }
}
