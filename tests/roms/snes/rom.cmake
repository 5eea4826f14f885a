# SNES test ROM (included by ../CMakeLists.txt): 65816 assembly for ca65, LoROM, 32 KiB, two
# pads, for the three bsnes-mercury profiles. ca65 assembles framelock_test.s (which includes
# display.inc) into the build tree; checksum.cmake links with ld65 and writes the header's
# checksum.
#
# Results: the ROM appended to `roms`, FRAMELOCK_TEST_SNES_ROM its path (left empty by the
# caller without ca65/ld65).

if(FRAMELOCK_CA65 AND FRAMELOCK_LD65)
    set(snes_dir ${CMAKE_CURRENT_SOURCE_DIR}/snes)
    set(snes_obj ${obj_dir}/snes)
    set(snes_rom ${rom_dir}/framelock_test.sfc)
    file(MAKE_DIRECTORY ${snes_obj})
    add_custom_command(
        OUTPUT ${snes_rom}
        COMMAND ${FRAMELOCK_CA65} --cpu 65816 -o ${snes_obj}/framelock_test.o
                ${snes_dir}/framelock_test.s
        COMMAND ${CMAKE_COMMAND} -DLD65=${FRAMELOCK_LD65} -DCONFIG=${snes_dir}/lorom.cfg
                -DOBJECT=${snes_obj}/framelock_test.o -DUNSUMMED=${snes_obj}/unsummed.sfc
                -DROM=${snes_rom} -DMAP=${snes_obj}/framelock_test.map -P ${snes_dir}/checksum.cmake
        DEPENDS ${snes_dir}/framelock_test.s ${snes_dir}/display.inc ${snes_dir}/lorom.cfg
                ${snes_dir}/checksum.cmake
                ${CMAKE_CURRENT_SOURCE_DIR}/common/crc32.inc
                ${CMAKE_CURRENT_SOURCE_DIR}/common/font.inc
        WORKING_DIRECTORY ${snes_obj}
        COMMENT "Assembling SNES test ROM framelock_test.sfc"
        VERBATIM)
    list(APPEND roms ${snes_rom})
    set(FRAMELOCK_TEST_SNES_ROM ${snes_rom} CACHE INTERNAL "SNES test ROM (empty: not built)")
else()
    message(STATUS "cc65 (ca65, ld65) not found: the SNES test ROM is not built and the tests "
                   "needing it will be skipped (Debian: apt-get install cc65).")
endif()
