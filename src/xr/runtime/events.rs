//! Reading the runtime's event queue. With Holographic Remoting on, events
//! go through [`poll_event`], which also returns the remoting runtime's own
//! events and its speech events (the openxr crate does not know them and
//! would drop them); otherwise through the crate's own xrPollEvent.

use std::mem::MaybeUninit;

use openxr as xr;

use super::calls::{CallKind, runtime_call};
use crate::xr::error::{XrError, xr_call};
use crate::xr::sys::remoting::{EventDataDisconnected, EventDataListening, structure_type};
use crate::xr::sys::speech::{self, SpeechEvent};

/// Storage for one polled event, and which way to poll.
enum EventStorage {
    /// The openxr crate's xrPollEvent: core events.
    Plain(xr::EventDataBuffer),
    /// Remoting's xrPollEvent: core events and the remoting ones.
    Remoting(MaybeUninit<xr::sys::EventDataBuffer>),
}

/// An instance's event queue.
pub struct EventQueue {
    /// The instance whose events these are.
    instance: xr::Instance,
    /// Where the event being handled is kept, and which way to poll.
    storage: EventStorage,
}

impl EventQueue {
    /// The queue of `instance`, created with (`remoting`) or without
    /// XR_MSFT_holographic_remoting.
    pub fn new(instance: &xr::Instance, remoting: bool) -> Self {
        EventQueue {
            instance: instance.clone(),
            storage: if remoting {
                EventStorage::Remoting(MaybeUninit::uninit())
            } else {
                EventStorage::Plain(xr::EventDataBuffer::new())
            },
        }
    }

    /// The next queued event; `None` when the queue is empty.
    pub fn next(&mut self) -> Result<Option<Polled<'_>>, XrError> {
        let (instance, storage) = (&self.instance, &mut self.storage);
        runtime_call(CallKind::Watched, "xrPollEvent", move || match storage {
            EventStorage::Plain(buffer) => Ok(instance
                .poll_event(buffer)
                .map_err(xr_call("xrPollEvent"))?
                .map(Polled::Core)),
            EventStorage::Remoting(storage) => poll_event(instance, storage),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemotingEvent {
    /// The app listens for a player on this handshake port.
    Listening(u16),
    /// The player accepted the connection.
    Connected,
    /// The connection ended or could not be made, with the runtime's reason.
    Disconnected(u32),
}

/// One event from xrPollEvent: a core one (the openxr crate's), or a
/// remoting or speech one (which the crate does not know and would drop).
pub enum Polled<'a> {
    /// An event the openxr crate knows.
    Core(xr::Event<'a>),
    /// A Holographic Remoting event.
    Remoting(RemotingEvent),
    /// An XR_MSFT_holographic_remoting_speech event.
    Speech(SpeechEvent),
}

/// Polls one event, remoting events included; `None` when the queue is
/// empty. Events neither the crate nor this module knows are skipped.
pub fn poll_event<'a>(
    instance: &xr::Instance,
    storage: &'a mut MaybeUninit<xr::sys::EventDataBuffer>,
) -> Result<Option<Polled<'a>>, XrError> {
    // A raw pointer, as in the openxr crate's own poll_event: the borrow
    // checker cannot see that a returned event ends the loop.
    let storage: *mut MaybeUninit<xr::sys::EventDataBuffer> = storage;
    loop {
        // SAFETY: `storage` comes from a live `&mut` for the whole call.
        let buffer = unsafe { (*storage).as_mut_ptr() };
        let base = buffer.cast::<xr::sys::BaseInStructure>();
        // SAFETY: the buffer is an XrEventDataBuffer's size and alignment; its
        // header is written before the runtime fills it in.
        unsafe {
            base.write(xr::sys::BaseInStructure {
                ty: xr::sys::EventDataBuffer::TYPE,
                next: std::ptr::null(),
            })
        };
        // SAFETY: the instance is live and the buffer is writable.
        let result = unsafe { (instance.fp().poll_event)(instance.as_raw(), buffer) };
        if result == xr::sys::Result::EVENT_UNAVAILABLE {
            return Ok(None);
        }
        if result.into_raw() < 0 {
            return Err(xr_call("xrPollEvent")(result));
        }
        // SAFETY: xrPollEvent succeeded, so the buffer holds the event it
        // wrote, and `storage` is borrowed for 'a.
        if let Some(polled) = unsafe { decode(&*storage) } {
            return Ok(Some(polled));
        }
    }
}

/// The event in `storage`: a remoting one, a core one, or `None` for one
/// neither this module nor the openxr crate knows.
///
/// # Safety
/// `storage` holds an event as xrPollEvent writes it.
unsafe fn decode(storage: &MaybeUninit<xr::sys::EventDataBuffer>) -> Option<Polled<'_>> {
    let buffer = storage.as_ptr();
    // SAFETY: per this function's contract, the header holds the event's type.
    let event_type = unsafe { (*buffer.cast::<xr::sys::BaseInStructure>()).ty }.into_raw();
    if event_type == structure_type::EVENT_DATA_LISTENING {
        // SAFETY: the runtime wrote an XrRemotingEventDataListeningMSFT,
        // which fits in the buffer.
        let event = unsafe { buffer.cast::<EventDataListening>().read() };
        return Some(Polled::Remoting(RemotingEvent::Listening(
            event.listening_port,
        )));
    }
    if event_type == structure_type::EVENT_DATA_CONNECTED {
        return Some(Polled::Remoting(RemotingEvent::Connected));
    }
    if event_type == structure_type::EVENT_DATA_DISCONNECTED {
        // SAFETY: the runtime wrote an XrRemotingEventDataDisconnectedMSFT,
        // which fits in the buffer.
        let event = unsafe { buffer.cast::<EventDataDisconnected>().read() };
        return Some(Polled::Remoting(RemotingEvent::Disconnected(
            event.disconnect_reason,
        )));
    }
    // SAFETY: per this function's contract, the buffer holds the event
    // whose type the header names.
    if let Some(event) = unsafe { speech::decode(event_type, buffer.cast()) } {
        return Some(Polled::Speech(event));
    }
    // SAFETY: the buffer holds a core event, or one the crate skips.
    unsafe { xr::Event::from_raw(storage) }.map(Polled::Core)
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    use super::*;
    use crate::xr::sys::remoting::disconnect_reason;
    use crate::xr::sys::ty;

    /// An event buffer holding `event` as xrPollEvent would write it.
    fn written<T>(event: T) -> MaybeUninit<xr::sys::EventDataBuffer> {
        assert!(size_of::<T>() <= size_of::<xr::sys::EventDataBuffer>());
        let mut storage = MaybeUninit::<xr::sys::EventDataBuffer>::zeroed();
        // SAFETY: `T` fits in the buffer (checked above), whose alignment
        // (8) is at least any event structure's.
        unsafe { storage.as_mut_ptr().cast::<T>().write(event) };
        storage
    }

    #[test]
    fn remoting_events_are_told_apart_from_core_ones() {
        let disconnected = written(EventDataDisconnected {
            ty: ty(structure_type::EVENT_DATA_DISCONNECTED),
            next: std::ptr::null(),
            disconnect_reason: 17,
        });
        let connected = written(xr::sys::BaseInStructure {
            ty: ty(structure_type::EVENT_DATA_CONNECTED),
            next: std::ptr::null(),
        });
        let listening = written(EventDataListening {
            ty: ty(structure_type::EVENT_DATA_LISTENING),
            next: std::ptr::null(),
            listening_port: 8265,
        });
        let lost = written(xr::sys::EventDataEventsLost {
            ty: xr::sys::EventDataEventsLost::TYPE,
            next: std::ptr::null(),
            lost_event_count: 3,
        });
        // SAFETY: each buffer holds an event as the runtime writes it.
        unsafe {
            assert!(matches!(
                decode(&disconnected),
                Some(Polled::Remoting(RemotingEvent::Disconnected(17)))
            ));
            assert!(matches!(
                decode(&connected),
                Some(Polled::Remoting(RemotingEvent::Connected))
            ));
            assert!(matches!(
                decode(&listening),
                Some(Polled::Remoting(RemotingEvent::Listening(8265)))
            ));
            assert!(matches!(
                decode(&lost),
                Some(Polled::Core(xr::Event::EventsLost(event))) if event.lost_event_count() == 3
            ));
        }
        assert_eq!(disconnect_reason(17), "connection lost");
    }
}
