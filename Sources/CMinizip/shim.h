// The system minizip (Debian libminizip-dev): the reference C zip reader/writer over zlib.
#include <minizip/unzip.h>
#include <minizip/zip.h>
