//! Compiles proto/stonegame/v1/stonegame.proto with protox (no system
//! protoc needed) and tonic-prost-build, and writes the encoded file
//! descriptor set to `$OUT_DIR/stonegame_descriptor.bin` for server
//! reflection. `Case.piles_le` is a `bytes::Bytes`, so decoding it takes a
//! slice of the received buffer instead of copying it.

#[cfg(not(feature = "proto"))]
fn main() {}

#[cfg(feature = "proto")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use protox::prost::Message;
    use std::path::PathBuf;

    let proto = "proto/stonegame/v1/stonegame.proto";
    println!("cargo:rerun-if-changed={proto}");
    let fds = protox::compile([proto], ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("stonegame_descriptor.bin"),
        fds.encode_to_vec(),
    )?;
    let encoded = fds.encode_to_vec();
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .bytes(".stonegame.v1.Case.piles_le")
        .compile_fds(fds)?;
    // The proto3 JSON mapping (serde impls) for the server's Connect JSON.
    #[cfg(feature = "json")]
    pbjson_build::Builder::new()
        .register_descriptors(&encoded)?
        .build(&[".stonegame.v1"])?;
    #[cfg(not(feature = "json"))]
    let _ = encoded;
    Ok(())
}
