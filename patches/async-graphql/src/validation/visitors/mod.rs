mod cache_control;
mod complexity;
mod depth;

pub use cache_control::CacheControlCalculate;
pub use complexity::ComplexityCalculate;
pub use depth::DepthCalculate;
