/** Helper names as the kernel's log prints them ("bpf_map_lookup_elem#1"). */
export { helperDisplayName } from '../helpers/table';
