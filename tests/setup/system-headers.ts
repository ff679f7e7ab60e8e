// Every test compiles against the real system headers, as the CLI does (see src/cli/system_headers.ts).
import { installSystemHeaders } from '../../src/cc';
import { diskSystemHeaders } from '../../src/cli/system_headers';

installSystemHeaders(diskSystemHeaders);
