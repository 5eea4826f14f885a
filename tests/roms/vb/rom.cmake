# Virtual Boy test ROM (included by ../CMakeLists.txt, whose variables it uses): NEC V810
# assembly. Debian ships no V810 assembler, so v810asm.py (Python 3, standard library only)
# assembles framelock_test.s into the whole 4 KiB image: program, cartridge header and reset
# vector.
#
# Appends the ROM to `roms` and sets FRAMELOCK_TEST_VB_ROM (empty without python3).

if(FRAMELOCK_PYTHON3)
    set(vb_dir ${CMAKE_CURRENT_SOURCE_DIR}/vb)
    set(vb_rom ${rom_dir}/framelock_test.vb)
    add_custom_command(
        OUTPUT ${vb_rom}
        COMMAND ${FRAMELOCK_PYTHON3} ${vb_dir}/v810asm.py ${vb_dir}/framelock_test.s -o ${vb_rom}
        DEPENDS ${vb_dir}/framelock_test.s ${vb_dir}/v810asm.py
        COMMENT "Assembling Virtual Boy test ROM framelock_test.vb"
        VERBATIM)
    list(APPEND roms ${vb_rom})
    set(FRAMELOCK_TEST_VB_ROM ${vb_rom} CACHE INTERNAL "Virtual Boy test ROM (empty: not built)")
else()
    message(STATUS "python3 not found: the Virtual Boy test ROM is not built and the tests needing "
                   "it will be skipped (Debian: apt-get install python3).")
endif()
