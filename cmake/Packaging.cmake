# `cpack -G DEB` in the build directory: a Debian package of what
# `cmake --install` puts under the prefix (README, "Installing").
set(CPACK_PACKAGE_NAME neuron-emu)
set(CPACK_PACKAGE_VENDOR "neuron-emu")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Emulator of AWS Neuron devices: the driver's sysfs tree, libnrt.so.1, the vendor's tools, conformance scenarios")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "neuron-emu developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The libraries the executables load (SystemC, FUSE, yaml-cpp, fmt, zlib),
# as dpkg-shlibdeps finds them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
