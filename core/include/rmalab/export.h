/* The export macro: only prototypes marked RMALAB_API are visible outside
 * the library (the build uses -fvisibility=hidden). */
#ifndef RMALAB_EXPORT_H
#define RMALAB_EXPORT_H

#if defined(__GNUC__)
#define RMALAB_API __attribute__((visibility("default")))
#else
#define RMALAB_API
#endif

#endif
