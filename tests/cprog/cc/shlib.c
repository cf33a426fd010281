/* A shared library built with rmalab cc -shared -fPIC (cc.py, case shlib):
 * its store is the library's own runtime copy's to report. */
void shlib_touch(int *p)
{
    p[0] = 7; /* STORE */
}
