//! Reading the runtime's event queue. With Holographic Remoting on, events
//! go through `remoting::poll_event`, which also returns the remoting
//! runtime's own events (the openxr crate does not know them and would drop
//! them); otherwise through the crate's own xrPollEvent.

use std::mem::MaybeUninit;

use openxr as xr;

use super::error::{XrError, xr_call};
use super::remoting::{self, Polled};
use super::runtime_calls::{CallKind, runtime_call};

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
            EventStorage::Remoting(storage) => remoting::poll_event(instance, storage),
        })
    }
}
