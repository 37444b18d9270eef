mod mutex;
mod rw_lock;
