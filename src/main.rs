//! The app's entry point: it only mounts. Everything else is in the library.

fn main() {
    sessionscope_web::mount();
}
