/** Traffic for the simulated NIC: packet builders/decoders, checksums, RSS, pcap, flow generators. */
export * from './addr';
export * from './csum';
export * from './packet';
export * from './decode';
export * from './pcap';
export * from './pcapng';
export * from './capture';
export * from './rss';
export * from './rng';
export * from './traffic';
export * from './profiles';
