"""Reference-free quality: cheap model signals and the overall estimate built on them."""
