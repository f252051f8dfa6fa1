//! How the runtime library is linked. On Linux it is marked `nodelete`: the
//! OpenXR loader unloads the runtime at xrDestroyInstance (dlclose), but the
//! application's threads that called into it still hold thread-local
//! destructors of its copy of Rust's std, which would then run in unmapped
//! code when those threads end.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    }
}
