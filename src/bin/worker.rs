//! The loading worker: reads dropped files in slices, parses them and builds the graph off the
//! main thread, then hands the model and the file bytes back. See `sessionscope_web::worker`.

fn main() {
    sessionscope_web::worker::start();
}
